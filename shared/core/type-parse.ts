/**
 * SQL type text ⇄ {@link LogicalType}, plus small schema helpers.
 *
 * The accepted spellings follow Flink's DDL: `BIGINT`, `INT`/`INTEGER`, `SMALLINT`, `TINYINT`,
 * `DOUBLE` (also `DOUBLE PRECISION`), `FLOAT` (also `REAL`), `DECIMAL(p, s)`/`DECIMAL(p)`/`DECIMAL`
 * (also `DEC`, `NUMERIC`), `STRING`, `VARCHAR(n)`, `CHAR(n)`/`CHAR` (also `CHARACTER`), `BYTES`,
 * `VARBINARY(n)`, `BINARY(n)`, `BOOLEAN`, `TIMESTAMP(3)`/`TIMESTAMP` (optionally
 * `WITHOUT TIME ZONE`), `DATE`, `TIME(p)`/`TIME` (p 0…3, `TIME` is `TIME(0)` as in Flink),
 * `TIMESTAMP_LTZ(3)`/`TIMESTAMP_LTZ`/`TIMESTAMP(3) WITH LOCAL TIME ZONE`, case-insensitive, with
 * an optional `NOT NULL` or `NULL` suffix. Printing follows Flink too (`VARCHAR(2147483647)` for
 * STRING, `DECIMAL(10, 2)`, `TIME(0)`, `TIMESTAMP_LTZ(3)`), so `parseType(formatType(t))` gives
 * back `t`.
 */
import { PlanError } from './errors.ts';
import type { Field, LogicalType, RowTypeField, Schema, TypeRoot } from './types.ts';

/** Flink's maximum VARCHAR length; `VARCHAR(MAX_VARCHAR_LENGTH)` is STRING. */
export const MAX_VARCHAR_LENGTH = 2147483647;

/** Flink's maximum DECIMAL precision. */
export const MAX_DECIMAL_PRECISION = 38;

/** The only TIMESTAMP precision Flambda stores (epoch milliseconds). */
export const TIMESTAMP_PRECISION = 3;

/** The largest TIME precision Flambda stores (milliseconds of the day). */
export const MAX_TIME_PRECISION = 3;

/** Listed in every parse error so users see the whole menu at once. */
const SUPPORTED =
  'BIGINT, INT, SMALLINT, TINYINT, DOUBLE, FLOAT, DECIMAL(p, s), STRING, VARCHAR(n), CHAR(n), BYTES, VARBINARY(n), BINARY(n), BOOLEAN, TIMESTAMP(3), DATE, TIME(p), TIMESTAMP_LTZ(3), ROW<name T, …>, ARRAY<T>, MAP<STRING, T>, MULTISET<T> (each optionally NOT NULL)';

type Token =
  /** A word, upper-cased; `raw` keeps its spelling (ROW field names are case-sensitive). */
  | { readonly kind: 'word'; readonly text: string; readonly raw: string; readonly quoted?: boolean }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'punct'; readonly text: string };

/** Splits type text into words, integers, `` `quoted` `` names and the punctuation `(`, `)`, `,`, `<`, `>`. */
function tokenize(text: string, fail: (detail: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === ',' || c === '<' || c === '>') {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '`') {
      // A quoted ROW field name; a doubled backtick is a backtick.
      let name = '';
      i++;
      for (;;) {
        if (i >= text.length) fail('unterminated `quoted` name');
        if (text[i] === '`') {
          if (text[i + 1] === '`') {
            name += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += text[i];
        i++;
      }
      tokens.push({ kind: 'word', text: name.toUpperCase(), raw: name, quoted: true });
    } else if (c >= '0' && c <= '9') {
      const start = i;
      while (i < text.length && text[i]! >= '0' && text[i]! <= '9') i++;
      tokens.push({ kind: 'number', value: Number(text.slice(start, i)) });
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < text.length && /[A-Za-z_0-9]/.test(text[i]!)) i++;
      const raw = text.slice(start, i);
      tokens.push({ kind: 'word', text: raw.toUpperCase(), raw });
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
  const reader = new TypeReader(tokens, fail);
  const type = reader.type();
  if (!reader.atEnd()) fail('unexpected text after the type');
  return type;
}

/** A recursive reader of type tokens (ROW, ARRAY and MAP nest). */
class TypeReader {
  private pos = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly fail: (detail: string) => never,
  ) {}

  atEnd(): boolean {
    return this.pos === this.tokens.length;
  }

  private peekWord(offset = 0): string | undefined {
    const t = this.tokens[this.pos + offset];
    return t?.kind === 'word' && t.quoted !== true ? t.text : undefined;
  }

  private isPunct(text: string): boolean {
    const t = this.tokens[this.pos];
    return t?.kind === 'punct' && t.text === text;
  }

  private expectPunct(text: string, what: string): void {
    if (!this.isPunct(text)) this.fail(`expected '${text}' ${what}`);
    this.pos++;
  }

  /** `NOT NULL` / `NULL` after a type. */
  private nullability(): boolean {
    if (this.peekWord() === 'NOT' && this.peekWord(1) === 'NULL') {
      this.pos += 2;
      return false;
    }
    if (this.peekWord() === 'NULL') this.pos++;
    return true;
  }

  /** A type with its nullability. */
  type(): LogicalType {
    const fail: (detail: string) => never = this.fail;
    const name = this.peekWord();
    if (name === undefined) fail(this.tokens.length === 0 ? 'the type is empty' : 'expected a type name');
    this.pos++;
    if (name === 'ROW') return this.rowType();
    if (name === 'ARRAY') {
      this.expectPunct('<', 'after ARRAY');
      const element = this.type();
      this.expectPunct('>', 'after the ARRAY element type');
      return { root: 'ARRAY', nullable: this.nullability(), element };
    }
    if (name === 'MULTISET') {
      this.expectPunct('<', 'after MULTISET');
      const element = this.type();
      this.expectPunct('>', 'after the MULTISET element type');
      return { root: 'MULTISET', nullable: this.nullability(), element };
    }
    if (name === 'MAP') {
      this.expectPunct('<', 'after MAP');
      const key = this.type();
      this.expectPunct(',', 'between the MAP key and value types');
      const value = this.type();
      this.expectPunct('>', 'after the MAP value type');
      if (key.root !== 'STRING') fail(`MAP keys must be STRING or VARCHAR here (got ${formatType(key)})`);
      return { root: 'MAP', nullable: this.nullability(), key, value };
    }
    return this.scalarType(name);
  }

  /** `ROW<a T, b U>` or `ROW(a T, b U)`, after the word ROW. */
  private rowType(): LogicalType {
    const fail: (detail: string) => never = this.fail;
    const close = this.isPunct('<') ? '>' : this.isPunct('(') ? ')' : fail("expected '<' or '(' after ROW");
    this.pos++;
    const fields: RowTypeField[] = [];
    const seen = new Set<string>();
    if (!this.isPunct(close)) {
      for (;;) {
        const t = this.tokens[this.pos];
        if (t?.kind !== 'word') fail('expected a ROW field name');
        this.pos++;
        if (seen.has(t.raw)) fail(`ROW field '${t.raw}' is declared twice`);
        if (t.raw === '__proto__') fail("ROW field name '__proto__' is reserved");
        seen.add(t.raw);
        fields.push({ name: t.raw, type: this.type() });
        // A field description (`'text'`) is not kept; Flink allows one after the type.
        if (this.isPunct(',')) {
          this.pos++;
          continue;
        }
        break;
      }
    }
    this.expectPunct(close, 'after the ROW fields');
    return { root: 'ROW', nullable: this.nullability(), fields };
  }

  /** The scalar types, after their name. */
  private scalarType(name: string): LogicalType {
    const fail: (detail: string) => never = this.fail;
    // Parenthesised integer parameters, e.g. the `(10, 2)` of DECIMAL(10, 2).
    const params: number[] = [];
    if (this.isPunct('(')) {
      this.pos++;
      for (;;) {
        const t = this.tokens[this.pos];
        if (t?.kind !== 'number') fail('expected an integer parameter');
        params.push(t.value);
        this.pos++;
        if (this.isPunct(',')) {
          this.pos++;
        } else if (this.isPunct(')')) {
          this.pos++;
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
    const extra: { precision?: number; scale?: number; length?: number; fixedLength?: true } = {};
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
      case 'SMALLINT':
      case 'TINYINT':
        noParams(name);
        root = name;
        break;
      case 'FLOAT':
      case 'REAL':
        // Flink's FLOAT is a 4-byte float, and REAL is its synonym (not DOUBLE as in Calcite).
        noParams(name);
        root = 'FLOAT';
        break;
      case 'DOUBLE':
        noParams(name);
        if (this.peekWord() === 'PRECISION') this.pos++;
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
      case 'CHAR':
      case 'CHARACTER': {
        if (params.length > 1) fail('CHAR takes one parameter (the length)');
        // Flink's CHAR without a length is CHAR(1).
        const length = params[0] ?? 1;
        if (length < 1 || length > MAX_VARCHAR_LENGTH) fail(`CHAR length must be between 1 and ${MAX_VARCHAR_LENGTH}, got ${length}`);
        root = 'STRING';
        extra.length = length;
        extra.fixedLength = true;
        break;
      }
      case 'BYTES':
        noParams(name);
        root = 'VARBINARY';
        break;
      case 'BINARY':
      case 'VARBINARY': {
        if (params.length > 1) fail(`${name} takes one parameter (the length)`);
        // Flink's BINARY and VARBINARY without a length have length 1.
        const length = params[0] ?? 1;
        if (length < 1 || length > MAX_VARCHAR_LENGTH) fail(`${name} length must be between 1 and ${MAX_VARCHAR_LENGTH}, got ${length}`);
        root = 'VARBINARY';
        if (length !== MAX_VARCHAR_LENGTH || name === 'BINARY') extra.length = length;
        if (name === 'BINARY') extra.fixedLength = true;
        break;
      }
      case 'BOOLEAN':
        noParams(name);
        root = 'BOOLEAN';
        break;
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ': {
        if (params.length > 1) fail(`${name} takes one parameter (the fractional precision)`);
        const precision = params[0] ?? TIMESTAMP_PRECISION;
        if (precision !== TIMESTAMP_PRECISION) {
          fail(`only ${name}(3) (millisecond precision) is supported, got ${name}(${precision})`);
        }
        root = name === 'TIMESTAMP' ? 'TIMESTAMP' : 'TIMESTAMP_LTZ';
        if (name === 'TIMESTAMP' && this.peekWord() === 'WITH') {
          if (this.peekWord(1) !== 'LOCAL' || this.peekWord(2) !== 'TIME' || this.peekWord(3) !== 'ZONE') {
            fail('TIMESTAMP WITH TIME ZONE is not a Flink type; use TIMESTAMP(3) WITH LOCAL TIME ZONE (TIMESTAMP_LTZ(3))');
          }
          this.pos += 4;
          root = 'TIMESTAMP_LTZ';
        } else if (name === 'TIMESTAMP' && this.peekWord() === 'WITHOUT') {
          if (this.peekWord(1) !== 'TIME' || this.peekWord(2) !== 'ZONE') fail("expected 'WITHOUT TIME ZONE'");
          this.pos += 3;
        }
        extra.precision = TIMESTAMP_PRECISION;
        break;
      }
      case 'DATE':
        noParams(name);
        root = 'DATE';
        break;
      case 'TIME': {
        if (params.length > 1) fail('TIME takes one parameter (the fractional precision)');
        // Flink's TIME without a precision is TIME(0).
        const precision = params[0] ?? 0;
        if (precision > MAX_TIME_PRECISION) fail(`TIME precision must be between 0 and ${MAX_TIME_PRECISION} (milliseconds), got ${precision}`);
        if (this.peekWord() === 'WITHOUT') {
          if (this.peekWord(1) !== 'TIME' || this.peekWord(2) !== 'ZONE') fail("expected 'WITHOUT TIME ZONE'");
          this.pos += 3;
        }
        root = 'TIME';
        extra.precision = precision;
        break;
      }
      default:
        return fail(`unsupported type ${name}`);
    }
    return { root, nullable: this.nullability(), ...extra };
  }
}

/**
 * Prints a type the way Flink does: `BIGINT`, `INT`, `SMALLINT`, `TINYINT`, `DOUBLE`, `FLOAT`,
 * `DECIMAL(10, 2)`, `VARCHAR(2147483647)` for STRING, `VARCHAR(20)`, `CHAR(5)`, `BOOLEAN`, `TIMESTAMP(3)`, `DATE`, `TIME(0)`,
 * `TIMESTAMP_LTZ(3)`, each followed by ` NOT NULL` when the type is not nullable.
 */
export function formatType(t: LogicalType): string {
  return formatTypeWith(t, false);
}

/**
 * Prints a type as Flink's `LogicalType.asSerializableString()` does (what `SHOW CREATE TABLE`
 * and `TYPEOF(x, TRUE)` show): {@link formatType}, but a TIMESTAMP_LTZ(p) as
 * `TIMESTAMP(p) WITH LOCAL TIME ZONE`, inside nested types too.
 */
export function formatSerializableType(t: LogicalType): string {
  return formatTypeWith(t, true);
}

function formatTypeWith(t: LogicalType, serializable: boolean): string {
  const formatType = (inner: LogicalType): string => formatTypeWith(inner, serializable);
  let base: string;
  switch (t.root) {
    case 'DECIMAL':
      base = `DECIMAL(${t.precision ?? 10}, ${t.scale ?? 0})`;
      break;
    case 'STRING':
      base = t.fixedLength === true ? `CHAR(${t.length ?? 1})` : `VARCHAR(${t.length ?? MAX_VARCHAR_LENGTH})`;
      break;
    case 'VARBINARY':
      base = t.fixedLength === true ? `BINARY(${t.length ?? 1})` : `VARBINARY(${t.length ?? MAX_VARCHAR_LENGTH})`;
      break;
    case 'TIMESTAMP':
      base = `TIMESTAMP(${t.precision ?? TIMESTAMP_PRECISION})`;
      break;
    case 'TIMESTAMP_LTZ':
      base = serializable ? `TIMESTAMP(${t.precision ?? TIMESTAMP_PRECISION}) WITH LOCAL TIME ZONE` : `TIMESTAMP_LTZ(${t.precision ?? TIMESTAMP_PRECISION})`;
      break;
    case 'TIME':
      base = `TIME(${t.precision ?? 0})`;
      break;
    case 'ROW':
      base = `ROW<${(t.fields ?? []).map((f) => `\`${f.name.replaceAll('`', '``')}\` ${formatType(f.type)}`).join(', ')}>`;
      break;
    case 'ARRAY':
      base = `ARRAY<${t.element ? formatType(t.element) : '?'}>`;
      break;
    case 'MAP':
      base = `MAP<${t.key ? formatType(t.key) : '?'}, ${t.value ? formatType(t.value) : '?'}>`;
      break;
    case 'MULTISET':
      base = `MULTISET<${t.element ? formatType(t.element) : '?'}>`;
      break;
    default:
      base = t.root;
  }
  return t.nullable ? base : `${base} NOT NULL`;
}

/**
 * Prints a type as Flink's `LogicalType.asSummaryString()` does (what `TYPEOF` and `DESCRIBE`
 * show): {@link formatType}, but `STRING` for a VARCHAR of the maximum length, inside nested
 * types too.
 */
export function formatTypeSummary(t: LogicalType): string {
  const notNull = t.nullable ? '' : ' NOT NULL';
  switch (t.root) {
    case 'STRING':
      return t.length === undefined ? `STRING${notNull}` : formatType(t);
    case 'VARBINARY':
      return t.length === undefined ? `BYTES${notNull}` : formatType(t);
    case 'ROW':
      return `ROW<${(t.fields ?? []).map((f) => `\`${f.name.replaceAll('`', '``')}\` ${formatTypeSummary(f.type)}`).join(', ')}>${notNull}`;
    case 'ARRAY':
    case 'MULTISET':
      return `${t.root}<${t.element ? formatTypeSummary(t.element) : '?'}>${notNull}`;
    case 'MAP':
      return `MAP<${t.key ? formatTypeSummary(t.key) : '?'}, ${t.value ? formatTypeSummary(t.value) : '?'}>${notNull}`;
    default:
      return formatType(t);
  }
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
