/**
 * SQL expressions (ast.ts) back to text, the way Flink prints the expressions of a table's
 * schema in DESCRIBE and SHOW CREATE TABLE (Calcite's unparse): identifiers back-quoted
 * (`` `ts` - INTERVAL '1' SECOND ``), function names and keywords upper case, interval units
 * singular, a binary operand in parentheses only where precedence needs them. The text reads
 * back to the same expression.
 */
import type { SqlExpr, SqlOrderItem } from './ast.ts';
import { SqlError } from './errors.ts';

/** Binding strength of the binary operators (higher binds tighter). */
const PRECEDENCE: Readonly<Record<string, number>> = {
  OR: 1,
  AND: 2,
  '=': 4,
  '<>': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '||': 5,
  '*': 6,
  '/': 6,
  '%': 6,
};

/** A name back-quoted, a back quote inside doubled. */
export function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** A string literal, a quote inside doubled. */
export function quoteString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The SQL text of an expression. */
export function unparseExpr(e: SqlExpr): string {
  switch (e.k) {
    case 'id':
      return e.parts.map(quoteName).join('.');
    case 'num':
      return e.text;
    case 'str':
      return quoteString(e.value);
    case 'bool':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'interval': {
      const negative = e.value.startsWith('-');
      const unit = `${singular(e.unit)}${e.toUnit ? ` TO ${singular(e.toUnit)}` : ''}`;
      return `INTERVAL ${negative ? '-' : ''}${quoteString(negative ? e.value.slice(1) : e.value)} ${unit}`;
    }
    case 'typed':
      return e.type === 'BINARY' ? `X${quoteString(e.value)}` : `${e.type} ${quoteString(e.value)}`;
    case 'bin': {
      const p = PRECEDENCE[e.op] ?? 3;
      const left = operand(e.left, p, false);
      const right = operand(e.right, p, true);
      return `${left} ${e.op} ${right}`;
    }
    case 'not':
      return `NOT ${operand(e.arg, 3, true)}`;
    case 'neg':
      return `-${operand(e.arg, 7, true)}`;
    case 'call': {
      const args = e.star ? '*' : `${e.distinct ? 'DISTINCT ' : ''}${e.args.map(unparseExpr).join(', ')}`;
      let text = `${e.name}(${args}${e.returning !== undefined ? ` RETURNING ${e.returning}` : ''})`;
      if (e.withinGroup) text += ` WITHIN GROUP (ORDER BY ${e.withinGroup.map(orderItem).join(', ')})`;
      if (e.filter) text += ` FILTER (WHERE ${unparseExpr(e.filter)})`;
      if (e.over) {
        const parts = [
          ...(e.over.partitionBy.length > 0 ? [`PARTITION BY ${e.over.partitionBy.map(unparseExpr).join(', ')}`] : []),
          ...(e.over.orderBy.length > 0 ? [`ORDER BY ${e.over.orderBy.map(orderItem).join(', ')}`] : []),
        ];
        text += ` OVER (${parts.join(' ')})`;
      }
      return text;
    }
    case 'keyword':
      return e.word;
    case 'case': {
      const whens = e.whens.map(([w, t]) => ` WHEN ${unparseExpr(w)} THEN ${unparseExpr(t)}`).join('');
      return `CASE${e.operand ? ` ${unparseExpr(e.operand)}` : ''}${whens}${e.otherwise ? ` ELSE ${unparseExpr(e.otherwise)}` : ''} END`;
    }
    case 'cast':
      return `${e.safe ? 'TRY_CAST' : 'CAST'}(${unparseExpr(e.expr)} AS ${e.type})`;
    case 'isnull':
      return `${operand(e.expr, 4, false)} IS ${e.not ? 'NOT ' : ''}NULL`;
    case 'isbool':
      return `${operand(e.expr, 4, false)} IS ${e.not ? 'NOT ' : ''}${e.value ? 'TRUE' : 'FALSE'}`;
    case 'distinctFrom':
      return `${operand(e.left, 4, false)} IS ${e.not ? 'NOT ' : ''}DISTINCT FROM ${operand(e.right, 4, true)}`;
    case 'isjson':
      return `${operand(e.expr, 4, false)} IS ${e.not ? 'NOT ' : ''}JSON ${e.kind}`;
    case 'between':
      return `${operand(e.expr, 4, false)} ${e.not ? 'NOT ' : ''}BETWEEN ${e.symmetric ? 'SYMMETRIC ' : ''}${operand(e.low, 5, false)} AND ${operand(e.high, 5, false)}`;
    case 'in':
      return `${operand(e.expr, 4, false)} ${e.not ? 'NOT ' : ''}IN (${e.list.map(unparseExpr).join(', ')})`;
    case 'like':
      return `${operand(e.expr, 4, false)} ${e.not ? 'NOT ' : ''}${e.similar ? 'SIMILAR TO' : 'LIKE'} ${operand(e.pattern, 5, false)}${e.escape ? ` ESCAPE ${unparseExpr(e.escape)}` : ''}`;
    case 'index':
      return `${operand(e.expr, 8, false)}[${unparseExpr(e.index)}]`;
    case 'field':
      return `${operand(e.expr, 8, false)}.${quoteName(e.name)}`;
    case 'constructor':
      return e.type === 'ROW' ? `ROW(${e.args.map(unparseExpr).join(', ')})` : `${e.type}[${e.args.map(unparseExpr).join(', ')}]`;
    case 'star':
      return e.qualifier !== undefined ? `${quoteName(e.qualifier)}.*` : '*';
    case 'inQuery':
    case 'exists':
    case 'scalarQuery':
      // A table's schema holds no subqueries: Flink rejects them in computed columns and watermarks.
      throw new SqlError(e.pos, 'a subquery is not allowed in a computed column or a watermark');
  }
}

/** `INTERVAL '5' SECONDS` prints as Calcite does, `SECOND`. */
function singular(unit: string): string {
  return unit.endsWith('S') ? unit.slice(0, -1) : unit;
}

function orderItem(o: SqlOrderItem): string {
  return `${unparseExpr(o.expr)}${o.direction === 'DESC' ? ' DESC' : ''}${o.nulls ? ` NULLS ${o.nulls}` : ''}`;
}

/** An operand of an operator of precedence `p`: parenthesised when it binds looser (or equally, on the right). */
function operand(e: SqlExpr, p: number, right: boolean): string {
  const own = e.k === 'bin' ? (PRECEDENCE[e.op] ?? 3) : e.k === 'not' ? 3 : ['isnull', 'isbool', 'distinctFrom', 'isjson', 'between', 'in', 'like'].includes(e.k) ? 4 : 9;
  const text = unparseExpr(e);
  return own < p || (right && own === p && e.k === 'bin') ? `(${text})` : text;
}
