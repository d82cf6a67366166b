/**
 * Flink built-in functions (of its "System (Built-in) Functions" page, the non-temporal ones)
 * that Flambda does not run, with the reason where one helps. A call of one is rejected naming it
 * as Flink's, not as an unknown function (expr-types.ts).
 */

const WINDOW = 'a window function of OVER windows; Flambda runs OVER aggregation with COUNT, SUM, MIN, MAX and AVG, and ROW_NUMBER, RANK and DENSE_RANK as Top-N';

/** Function name → why it is not supported (or undefined). */
const NOT_SUPPORTED: ReadonlyMap<string, string | undefined> = new Map<string, string | undefined>([
  ['LEAD', WINDOW],
  ['LAG', WINDOW],
  ['CUME_DIST', WINDOW],
  ['PERCENT_RANK', WINDOW],
  ['NTILE', WINDOW],
]);

/** The message for a call of a Flink function Flambda does not support, or undefined for any other name. */
export function unsupportedFlinkFunction(name: string): string | undefined {
  if (!NOT_SUPPORTED.has(name)) return undefined;
  const why = NOT_SUPPORTED.get(name);
  return `'${name}' is a Flink built-in function that Flambda does not support yet${why === undefined ? '' : ` (${why})`}`;
}
