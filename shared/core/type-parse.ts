/**
 * SQL type text ⇄ {@link LogicalType}, plus small schema helpers.
 *
 * The accepted spellings follow Flink's DDL: `BIGINT`, `INT`/`INTEGER`, `DOUBLE` (also
 * `DOUBLE PRECISION`), `DECIMAL(p, s)`/`DECIMAL(p)`/`DECIMAL` (also `DEC`, `NUMERIC`),
 * `STRING`, `VARCHAR(n)`, `BOOLEAN`, `TIMESTAMP(3)`/`TIMESTAMP` (optionally
 * `WITHOUT TIME ZONE`), case-insensitive, with an optional `NOT NULL` or `NULL` suffix.
 * Printing follows Flink too (`VARCHAR(2147483647)` for STRING, `DECIMAL(10, 2)`), so
 * `parseType(formatType(t))` gives back `t`.
 */
import { PlanError } from './errors.ts';
import type { Field, LogicalType, Schema, TypeRoot } from './types.ts';

/** Flink's maximum VARCHAR length; `VARCHAR(MAX_VARCHAR_LENGTH)` is STRING. */
export const MAX_VARCHAR_LENGTH = 2147483647;

/** Flink's maximum DECIMAL precision. */
export const MAX_DECIMAL_PRECISION = 38;

/** The only TIMESTAMP precision Flambda stores (epoch milliseconds). */
export const TIMESTAMP_PRECISION = 3;

/** Listed in every parse error so users see the whole menu at once. */
const SUPPORTED =
  'BIGINT, INT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR(n), BOOLEAN, TIMESTAMP(3) (each optionally NOT NULL)';

type Token =
  | { readonly kind: 'word'; readonly text: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'punct'; readonly text: string };

/** Splits type text into upper-cased words, integers and the punctuation `(`, `)`, `,`. */
function tokenize(text: string, fail: (detail: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c >= '0' && c <= '9') {
      const start = i;
      while (i < text.length && text[i]! >= '0' && text[i]! <= '9') i++;
      tokens.push({ kind: 'number', value: Number(text.slice(start, i)) });
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < text.length && /[A-Za-z_0-9]/.test(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i).toUpperCase() });
    } else {
      fail(`unexpected character '${c}'`);
    }
  }
  return tokens;
}

/**
 * Parses a SQL type such as `DECIMAL(10, 2) NOT NULL`.
 *
 * Defaults follow Flink SQL: `DECIMAL` is `DECIMAL(10, 0)`, `DECIMAL(p)` is `DECIMAL(p, 0)` and a
 * bare `VARCHAR` is STRING (Flink's type system gives VARCHAR without a length the maximum
 * length, so Nexmark's `channel VARCHAR` DDL holds any string). A bare `TIMESTAMP` is read as `TIMESTAMP(3)` (Flink would
 * default to 6, but Flambda stores milliseconds only). `VARCHAR(2147483647)` is STRING.
 *
 * @throws PlanError naming the bad text and listing the supported types.
 */
export function parseType(text: string): LogicalType {
  const fail: (detail: string) => never = (detail) => {
    throw new PlanError(`Cannot parse type '${text}': ${detail}. Supported types: ${SUPPORTED}`);
  };
  const tokens = tokenize(text, fail);
  let pos = 0;
  const peekWord = (offset = 0): string | undefined => {
    const t = tokens[pos + offset];
    return t?.kind === 'word' ? t.text : undefined;
  };

  const name = peekWord();
  if (name === undefined) fail(tokens.length === 0 ? 'the type is empty' : 'expected a type name');
  pos++;

  // Parenthesised integer parameters, e.g. the `(10, 2)` of DECIMAL(10, 2).
  const params: number[] = [];
  const open = tokens[pos];
  if (open?.kind === 'punct' && open.text === '(') {
    pos++;
    for (;;) {
      const t = tokens[pos];
      if (t?.kind !== 'number') fail('expected an integer parameter');
      params.push(t.value);
      pos++;
      const sep = tokens[pos];
      if (sep?.kind === 'punct' && sep.text === ',') {
        pos++;
      } else if (sep?.kind === 'punct' && sep.text === ')') {
        pos++;
        break;
      } else {
        fail("expected ',' or ')' in the type parameters");
      }
    }
  }

  const noParams = (typeName: string): void => {
    if (params.length > 0) fail(`${typeName} takes no parameters`);
  };

  let root: TypeRoot;
  const extra: { precision?: number; scale?: number; length?: number } = {};
  switch (name) {
    case 'BIGINT':
      noParams(name);
      root = 'BIGINT';
      break;
    case 'INT':
    case 'INTEGER':
      noParams(name);
      root = 'INT';
      break;
    case 'DOUBLE':
      noParams(name);
      if (peekWord() === 'PRECISION') pos++;
      root = 'DOUBLE';
      break;
    case 'DECIMAL':
    case 'DEC':
    case 'NUMERIC': {
      if (params.length > 2) fail(`${name} takes at most two parameters (precision, scale)`);
      const precision = params[0] ?? 10;
      const scale = params[1] ?? 0;
      if (precision < 1 || precision > MAX_DECIMAL_PRECISION) {
        fail(`DECIMAL precision must be between 1 and ${MAX_DECIMAL_PRECISION}, got ${precision}`);
      }
      if (scale > precision) fail(`DECIMAL scale must be between 0 and the precision ${precision}, got ${scale}`);
      root = 'DECIMAL';
      extra.precision = precision;
      extra.scale = scale;
      break;
    }
    case 'STRING':
      noParams(name);
      root = 'STRING';
      break;
    case 'VARCHAR': {
      if (params.length > 1) fail('VARCHAR takes one parameter (the maximum length)');
      const length = params[0] ?? MAX_VARCHAR_LENGTH;
      if (length < 1 || length > MAX_VARCHAR_LENGTH) {
        fail(`VARCHAR length must be between 1 and ${MAX_VARCHAR_LENGTH}, got ${length}`);
      }
      root = 'STRING';
      if (length !== MAX_VARCHAR_LENGTH) extra.length = length;
      break;
    }
    case 'BOOLEAN':
      noParams(name);
      root = 'BOOLEAN';
      break;
    case 'TIMESTAMP': {
      if (params.length > 1) fail('TIMESTAMP takes one parameter (the fractional precision)');
      const precision = params[0] ?? TIMESTAMP_PRECISION;
      if (precision !== TIMESTAMP_PRECISION) {
        fail(`only TIMESTAMP(3) (millisecond precision) is supported, got TIMESTAMP(${precision})`);
      }
      if (peekWord() === 'WITH') fail('TIMESTAMP WITH (LOCAL) TIME ZONE is not supported; use TIMESTAMP(3) in UTC');
      if (peekWord() === 'WITHOUT') {
        if (peekWord(1) !== 'TIME' || peekWord(2) !== 'ZONE') fail("expected 'WITHOUT TIME ZONE'");
        pos += 3;
      }
      root = 'TIMESTAMP';
      extra.precision = TIMESTAMP_PRECISION;
      break;
    }
    default:
      return fail(`unsupported type ${name}`);
  }

  let nullable = true;
  if (peekWord() === 'NOT' && peekWord(1) === 'NULL') {
    nullable = false;
    pos += 2;
  } else if (peekWord() === 'NULL') {
    pos++;
  }
  if (pos !== tokens.length) fail('unexpected text after the type');
  return { root, nullable, ...extra };
}

/**
 * Prints a type the way Flink does: `BIGINT`, `INT`, `DOUBLE`, `DECIMAL(10, 2)`,
 * `VARCHAR(2147483647)` for STRING, `VARCHAR(20)`, `BOOLEAN`, `TIMESTAMP(3)`, each followed by
 * ` NOT NULL` when the type is not nullable.
 */
export function formatType(t: LogicalType): string {
  let base: string;
  switch (t.root) {
    case 'DECIMAL':
      base = `DECIMAL(${t.precision ?? 10}, ${t.scale ?? 0})`;
      break;
    case 'STRING':
      base = `VARCHAR(${t.length ?? MAX_VARCHAR_LENGTH})`;
      break;
    case 'TIMESTAMP':
      base = `TIMESTAMP(${t.precision ?? TIMESTAMP_PRECISION})`;
      break;
    default:
      base = t.root;
  }
  return t.nullable ? base : `${base} NOT NULL`;
}

/**
 * Builds a schema from fields after validating the column names: non-empty, unique, and not
 * `__proto__` (rows are plain objects, where that key would change the prototype instead of
 * holding a value).
 *
 * @throws PlanError for an invalid or duplicate name.
 */
export function schemaFromFields(fields: readonly Field[]): Schema {
  const seen = new Set<string>();
  for (const field of fields) {
    if (typeof field.name !== 'string' || field.name === '') throw new PlanError('Column names must be non-empty strings');
    if (field.name === '__proto__') throw new PlanError("Column name '__proto__' is reserved");
    if (seen.has(field.name)) throw new PlanError(`Duplicate column name '${field.name}'`);
    seen.add(field.name);
  }
  return { fields: [...fields] };
}

/**
 * Convenience schema builder: `schemaOf({ auction: 'BIGINT NOT NULL', price: 'DECIMAL(10, 2)' })`.
 * Column order is the object's key order; note that JavaScript puts integer-like keys such as
 * `'1'` first, so avoid them when order matters.
 *
 * @throws PlanError for an invalid name or type; type errors name the column.
 */
export function schemaOf(columns: Record<string, string | LogicalType>): Schema {
  const fields: Field[] = [];
  for (const [name, spec] of Object.entries(columns)) {
    let type: LogicalType;
    if (typeof spec === 'string') {
      try {
        type = parseType(spec);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new PlanError(`Column '${name}': ${message}`, { cause: err });
      }
    } else {
      type = spec;
    }
    fields.push({ name, type });
  }
  return schemaFromFields(fields);
}

/** Finds a field by exact (case-sensitive) name; `undefined` when absent. */
export function findField(schema: Schema, name: string): Field | undefined {
  return schema.fields.find((f) => f.name === name);
}

/** Names the missing column, suggests a case-insensitive match and lists what exists. */
function missingColumnError(schema: Schema, name: string, context: string | undefined): PlanError {
  const where = context === undefined ? '' : ` in ${context}`;
  const lower = name.toLowerCase();
  const near = schema.fields.find((f) => f.name.toLowerCase() === lower);
  const hint = near === undefined ? '' : ` (did you mean '${near.name}'?)`;
  const available = schema.fields.length === 0 ? '(none)' : schema.fields.map((f) => f.name).join(', ');
  return new PlanError(`Column '${name}' not found${where}${hint}; available columns: ${available}`);
}

/**
 * Index of the named field in the schema.
 *
 * @param context Where the column is referenced, e.g. `WHERE clause`; used in the error.
 * @throws PlanError naming the missing column and listing the available ones.
 */
export function fieldIndex(schema: Schema, name: string, context?: string): number {
  const index = schema.fields.findIndex((f) => f.name === name);
  if (index < 0) throw missingColumnError(schema, name, context);
  return index;
}

/**
 * The named field of the schema.
 *
 * @param context Where the column is referenced, e.g. `GROUP BY`; used in the error.
 * @throws PlanError naming the missing column and listing the available ones.
 */
export function requireField(schema: Schema, name: string, context?: string): Field {
  return schema.fields[fieldIndex(schema, name, context)]!;
}
