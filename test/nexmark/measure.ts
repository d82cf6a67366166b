/**
 * Prints the `nexmark` suite's result lines (one JSON object per line), like
 * `flambda bench nexmark --json` will once registered:
 * `npx tsx test/nexmark/measure.ts [events] [queries…]`, e.g.
 * `npx tsx test/nexmark/measure.ts 1000000 q0 q15 q18 q19`.
 */
import { NEXMARK_DEFAULT_EVENTS, runNexmarkBench, type NexmarkQuery } from '../../shared/bench/nexmark.ts';

const [eventsArg, ...queries] = process.argv.slice(2);
void runNexmarkBench({
  events: eventsArg ? Number(eventsArg) : NEXMARK_DEFAULT_EVENTS,
  ...(queries.length > 0 ? { query: queries as NexmarkQuery[] } : {}),
  onResult: (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
});
