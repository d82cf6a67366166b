/**
 * `flambda bench <suite> --json --events 2000`: one JSON line per result (timings only checked > 0).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './cli.ts';

/** Parses stdout that must be exactly one JSON line. */
function oneJsonLine(r: CliResult): Record<string, unknown> {
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

describe('flambda bench --json', () => {
  let passthrough: CliResult;
  let groupAgg: CliResult;

  beforeAll(async () => {
    // One after the other: the two suites should not compete for the CPU.
    passthrough = await runCli(['bench', 'passthrough', '--json', '--events', '2000']);
    groupAgg = await runCli(['bench', 'group-agg', '--json', '--events', '2000']);
  });

  it('passthrough prints one JSON line with suite, case and events_per_s', () => {
    expect(passthrough.code, passthrough.stderr).toBe(0);
    const r = oneJsonLine(passthrough);
    expect(r.suite).toBe('passthrough');
    expect(r.events).toBe(2000);
    expect(typeof r.case).toBe('string');
    expect(r.case).not.toBe('');
    expect(typeof r.events_per_s).toBe('number');
    expect(r.events_per_s as number).toBeGreaterThan(0);
    expect(r).not.toHaveProperty('ratio_to_passthrough');
  });

  it('group-agg prints one JSON line with suite, case, events_per_s and ratio_to_passthrough', () => {
    expect(groupAgg.code, groupAgg.stderr).toBe(0);
    const r = oneJsonLine(groupAgg);
    expect(r.suite).toBe('group-agg');
    expect(r.events).toBe(2000);
    expect(typeof r.case).toBe('string');
    expect(r.case).not.toBe('');
    expect(r.events_per_s as number).toBeGreaterThan(0);
    expect(typeof r.ratio_to_passthrough).toBe('number');
    expect(r.ratio_to_passthrough as number).toBeGreaterThan(0);
  });
});

describe('flambda bench windows --json', () => {
  let windows: CliResult;

  beforeAll(async () => {
    windows = await runCli(['bench', 'windows', '--json', '--events', '3000'], { timeoutMs: 120_000 });
  }, 120_000);

  it('prints one JSON line per case (tumble, hop, session) with throughput, timers and bounded live state', () => {
    expect(windows.code, windows.stderr).toBe(0);
    const results = windows.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((r) => r.case)).toEqual(['tumble', 'hop', 'session']);
    for (const r of results) {
      expect(r.suite).toBe('windows');
      expect(r.events).toBe(3000);
      expect(r.keys).toBe(100_000);
      for (const field of ['events_per_s', 'passthrough_events_per_s', 'ratio_to_passthrough', 'timers_fired_per_s', 'live_state_entries', 'live_windows_bound']) {
        expect(typeof r[field], field).toBe('number');
      }
      expect(r.events_per_s as number).toBeGreaterThan(0);
      expect(r.ratio_to_passthrough as number).toBeGreaterThan(0);
      expect(r.timers_fired_per_s as number).toBeGreaterThan(0);
      expect(r.live_state_entries as number).toBeGreaterThan(0);
      expect(r.live_state_entries as number).toBeLessThanOrEqual(r.live_windows_bound as number);
      expect(r.state_entries_after_end).toBe(0);
      expect(r.output_rows as number).toBeGreaterThan(0);
    }
  });
});

describe('flambda bench state-io --json', () => {
  let stateIo: CliResult;

  beforeAll(async () => {
    stateIo = await runCli(['bench', 'state-io', '--json', '--events', '2000'], { timeoutMs: 300_000 });
  }, 300_000);

  it('prints one JSON line per case with request rates and billing units of both backends and the write reduction', () => {
    expect(stateIo.code, stateIo.stderr).toBe(0);
    const lines = stateIo.stdout.split('\n').filter((l) => l !== '');
    const results = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((r) => r.case)).toEqual(['q19', 'tumble-agg', 'group-agg']);
    for (const r of results) {
      expect(r.suite).toBe('state-io');
      expect(r.events).toBe(2000);
      for (const field of ['writes_per_1000', 'reads_per_1000', 'checkpoint_writes_per_1000', 'baseline_writes_per_1000', 'baseline_reads_per_1000', 'write_reduction']) {
        expect(typeof r[field], field).toBe('number');
      }
      expect(r.writes_per_1000 as number).toBeGreaterThan(0);
      expect(r.reads_per_1000 as number).toBeGreaterThan(0);
      expect(r.baseline_writes_per_1000 as number).toBeGreaterThan(r.writes_per_1000 as number);
      expect(r.write_reduction as number).toBeGreaterThan(1);
      // Billing units: every item written costs at least one write unit, every strongly
      // consistent read request at least one read unit, on both sides.
      for (const field of ['write_units_per_1000', 'read_units_per_1000', 'checkpoint_write_units_per_1000', 'baseline_write_units_per_1000', 'baseline_read_units_per_1000', 'write_unit_reduction']) {
        expect(typeof r[field], field).toBe('number');
      }
      expect(r.write_units_per_1000 as number).toBeGreaterThanOrEqual(r.write_items_per_1000 as number);
      expect(r.checkpoint_write_units_per_1000 as number).toBeGreaterThanOrEqual(r.checkpoint_writes_per_1000 as number);
      expect(r.read_units_per_1000 as number).toBeGreaterThanOrEqual(r.reads_per_1000 as number);
      expect(r.baseline_write_units_per_1000 as number).toBeGreaterThanOrEqual(r.baseline_writes_per_1000 as number);
      expect(r.baseline_read_units_per_1000 as number).toBeGreaterThanOrEqual(r.baseline_reads_per_1000 as number);
      expect(r.write_unit_reduction).toBe(Math.round(((r.baseline_write_units_per_1000 as number) / (r.write_units_per_1000 as number)) * 100) / 100);
    }
  });
});

describe('flambda bench nexmark --query', () => {
  it('measures the one query asked for: one JSON line, with ratio_to_q0 from q0 measured in the same call', async () => {
    const r = await runCli(['bench', 'nexmark', '--query', 'q19', '--events', '5000', '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const line = oneJsonLine(r);
    expect([line.suite, line.case, line.events]).toEqual(['nexmark', 'q19', 5000]);
    expect(line.q0_events_per_s as number).toBeGreaterThan(0);
    expect(line.ratio_to_q0).toBe(Math.round(((line.events_per_s as number) / (line.q0_events_per_s as number)) * 1000) / 1000);
    expect(line.rows_in).toBe(4600);
  }, 60_000);

  it('rejects an unknown query, listing the valid ones, and --query on another suite', async () => {
    const unknown = await runCli(['bench', 'nexmark', '--query', 'q99', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe("flambda: error: unknown Nexmark query 'q99' (queries: q0, q3, q4, q5, q5-join, q7, q7-join, q8, q9, q11, q13, q15, q18, q19, q20)\n");
    const other = await runCli(['bench', 'topn', '--query', 'q5']);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe("flambda: error: --query applies to the nexmark suite only (given suite 'topn')\n");
  });
});
