/**
 * Pattern matching for Flink's Top-N rewrite (FlinkLogicalRankRule): which select item is the
 * ranking function, and which conjuncts of the outer WHERE bound the rank.
 */
import type { RankRange } from '../plan/logical.ts';
import type { SqlExpr, SqlFrom, SqlSelect } from './ast.ts';
import { SqlError } from './errors.ts';
import { intervalMs } from './sql-literals.ts';
import { sqlMapChildren } from './sql-expr-walk.ts';

const RANKING = new Set(['ROW_NUMBER', 'RANK', 'DENSE_RANK']);

/** The index of the select item that is `ROW_NUMBER() / RANK() / DENSE_RANK() OVER (…)`, if any. */
export function rankItem(q: SqlSelect): { index: number } | undefined {
  const index = q.items.findIndex((i) => i.expr.k === 'call' && RANKING.has(i.expr.name) && i.expr.over !== undefined);
  return index < 0 ? undefined : { index };
}

function intValue(e: SqlExpr): number | undefined {
  if (e.k !== 'num' || !/^\d+$/.test(e.text)) return undefined;
  return Number(e.text);
}

function isRank(e: SqlExpr, name: string): boolean {
  return e.k === 'id' && (e.parts[e.parts.length - 1] as string).toLowerCase() === name.toLowerCase();
}

/**
 * Splits the outer WHERE into the rank range (`rn <= N`, `rn < N`, `rn = N`, `rn BETWEEN a AND b`,
 * `N >= rn`, `rn <= col`) and the remaining condition.
 *
 * @throws SqlError for a rank bound that keeps no rank (`rn < 1`).
 */
export function rankFilter(where: SqlExpr, rankName: string): { range?: RankRange; rest?: SqlExpr } {
  const conjuncts = (e: SqlExpr): SqlExpr[] => (e.k === 'bin' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e]);
  let start = 1;
  let end: number | undefined;
  let endColumn: string | undefined;
  const rest: SqlExpr[] = [];
  for (const c of conjuncts(where)) {
    if (c.k === 'between' && !c.not && isRank(c.expr, rankName)) {
      const a = intValue(c.low);
      const b = intValue(c.high);
      if (a !== undefined && b !== undefined) {
        start = Math.max(start, a);
        end = end === undefined ? b : Math.min(end, b);
        continue;
      }
    }
    if (c.k === 'bin' && ['<=', '<', '=', '>=', '>'].includes(c.op)) {
      const flip: Record<string, string> = { '<=': '>=', '<': '>', '=': '=', '>=': '<=', '>': '<' };
      const [op, other] = isRank(c.left, rankName) ? [c.op, c.right] : isRank(c.right, rankName) ? [flip[c.op] as string, c.left] : [undefined, undefined];
      if (op !== undefined && other !== undefined) {
        const n = intValue(other);
        if (n !== undefined) {
          if (op === '<=') end = end === undefined ? n : Math.min(end, n);
          else if (op === '<') end = end === undefined ? n - 1 : Math.min(end, n - 1);
          else if (op === '=') {
            start = Math.max(start, n);
            end = end === undefined ? n : Math.min(end, n);
          } else if (op === '>=') start = Math.max(start, n);
          else start = Math.max(start, n + 1);
          continue;
        }
        if (op === '<=' && other.k === 'id') {
          endColumn = other.parts[other.parts.length - 1] as string;
          continue;
        }
      }
    }
    rest.push(c);
  }
  const restExpr = rest.length === 0 ? undefined : rest.reduce((a, b) => ({ k: 'bin', op: 'AND', left: a, right: b, pos: a.pos }) as SqlExpr);
  if (endColumn !== undefined) return { range: { type: 'variable', endColumn }, ...(restExpr ? { rest: restExpr } : {}) };
  if (end === undefined) return restExpr ? { rest: restExpr } : {};
  if (end < start) throw new SqlError(where.pos, `the filter on '${rankName}' keeps no rank (${start}..${end})`);
  return { range: { type: 'constant', start, end }, ...(restExpr ? { rest: restExpr } : {}) };
}

const GROUP_WINDOWS = new Set(['TUMBLE', 'HOP', 'SESSION']);
const WINDOW_PROPERTIES: Readonly<Record<string, string>> = { START: 'window_start', END: 'window_end', ROWTIME: 'window_time' };

/**
 * Flink's legacy group windows — `GROUP BY TUMBLE(ts, INTERVAL …), k` with `TUMBLE_START(…)`,
 * `HOP(ts, slide, size)`, `SESSION(ts, gap)` and their `_START` / `_END` / `_ROWTIME` — rewritten
 * into the window TVF form they are equivalent to (for SESSION, the other group keys partition
 * the session), so one set of rules plans both.
 *
 * @throws SqlError for a second group window, a non-column time argument, or a window property
 *   that names another window function.
 */
export function rewriteGroupWindow(q: SqlSelect): SqlSelect {
  const windows = q.groupBy.filter((g) => g.k === 'call' && GROUP_WINDOWS.has(g.name) && g.over === undefined);
  if (windows.length === 0) return q;
  const win = windows[0] as Extract<SqlExpr, { k: 'call' }>;
  if (windows.length > 1) throw new SqlError((windows[1] as SqlExpr).pos, 'only one group window per GROUP BY');
  const time = win.args[0];
  if (!time || time.k !== 'id') throw new SqlError(win.pos, `${win.name}(time_column, INTERVAL …) needs a time column first`);
  const keys = q.groupBy.filter((g) => g !== win);
  const timeName = time.parts[time.parts.length - 1] as string;
  const partitionBy =
    win.name === 'SESSION'
      ? keys.map((k) => {
          if (k.k !== 'id') throw new SqlError(k.pos, 'a SESSION group window groups by columns only');
          return { name: k.parts[k.parts.length - 1] as string, pos: k.pos };
        })
      : [];
  const from: SqlFrom = {
    k: 'tvf',
    fn: win.name as 'TUMBLE',
    input: q.from,
    partitionBy,
    timeColumn: { name: timeName, pos: time.pos },
    args: win.args.slice(1),
    pos: win.pos,
  };
  const replaceProps = (e: SqlExpr): SqlExpr => {
    if (e.k === 'call' && e.over === undefined) {
      const m = /^(TUMBLE|HOP|SESSION)_(START|END|ROWTIME)$/.exec(e.name);
      if (m) {
        if (m[1] !== win.name) throw new SqlError(e.pos, `${e.name} does not match the group window ${win.name}(…)`);
        // Calcite matches an auxiliary call to its group window by its arguments, so
        // TUMBLE_START(ts, INTERVAL '10' MINUTE) under GROUP BY TUMBLE(ts, INTERVAL '20' MINUTE) is an error.
        if (!sameWindowArguments(e.args, win.args)) {
          throw new SqlError(e.pos, `${e.name} must have the arguments of the group window ${win.name}(…) in GROUP BY (the same time column and intervals)`);
        }
        return { k: 'id', parts: [WINDOW_PROPERTIES[m[2] as string] as string], pos: e.pos };
      }
    }
    return sqlMapChildren(e, replaceProps);
  };
  const windowCols: SqlExpr[] = [
    { k: 'id', parts: ['window_start'], pos: win.pos },
    { k: 'id', parts: ['window_end'], pos: win.pos },
  ];
  return {
    ...q,
    from,
    items: q.items.map((i) => ({ ...i, expr: replaceProps(i.expr), ...(i.alias === undefined && i.expr.k === 'call' && /_(START|END|ROWTIME)$/.test(i.expr.name) ? { alias: `EXPR$${q.items.indexOf(i)}` } : {}) })),
    groupBy: [...keys, ...windowCols],
    ...(q.having ? { having: replaceProps(q.having) } : {}),
  };
}

/** Whether two group window calls' arguments are the same column and the same intervals. */
function sameWindowArguments(a: readonly SqlExpr[], b: readonly SqlExpr[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i] as SqlExpr;
    if (x.k === 'id' && y.k === 'id') return (x.parts.at(-1) as string).toLowerCase() === (y.parts.at(-1) as string).toLowerCase();
    if (x.k === 'interval' && y.k === 'interval') return intervalMs(x) === intervalMs(y);
    return false;
  });
}
