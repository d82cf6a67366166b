/**
 * `flambda explain`: the Flink-style plan, the stages, and the JSON job graph of q15.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './cli.ts';

describe('flambda explain examples/nexmark/q15.ts', () => {
  let text: CliResult;
  let modes: CliResult;
  let json: CliResult;

  beforeAll(async () => {
    [text, modes, json] = await Promise.all([
      runCli(['explain', 'examples/nexmark/q15.ts', '--parallelism', '4']),
      runCli(['explain', 'examples/nexmark/q15.ts', '--changelog-mode']),
      runCli(['explain', 'examples/nexmark/q15.ts', '-p', '4', '--json']),
    ]);
  });

  it('prints == Physical Plan == with the GroupAggregate directly above Exchange(distribution=[hash[day]])', () => {
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toBe('');
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe('== Physical Plan ==');
    expect(lines[1]).toMatch(/^Sink\(table=\[q15\], fields=\[day, total_bids, .*\], upsertKey=\[day\]\)$/);
    const agg = lines.findIndex((l) => l.startsWith('+- GroupAggregate(groupBy=[day], '));
    expect(agg).toBe(2);
    expect(lines[agg]).toContain('COUNT(*) AS total_bids');
    expect(lines[agg]).toContain('COUNT(DISTINCT bidder) FILTER $f1 AS rank1_bidders');
    expect(lines[agg + 1]).toBe('   +- Exchange(distribution=[hash[day]])');
    expect(lines[agg + 2]).toMatch(/^ {6}\+- Calc\(select=\[DATE_FORMAT\(date_time, 'yyyy-MM-dd'\) AS day, /);
    expect(lines[agg + 3]).toMatch(/^ {9}\+- Source\(table=\[bid\], fields=\[auction, bidder, price, channel, url, date_time, extra\]/);
  });

  it('prints == Stages == with one line per stage', () => {
    const stages = text.stdout.split('== Stages ==\n')[1]?.trimEnd().split('\n');
    expect(stages).toHaveLength(2);
    expect(stages?.[0]).toMatch(/^stage-0 \(parallelism 4\): source bid => Calc_\d+ => stage-1 via hash\[day\]$/);
    expect(stages?.[1]).toMatch(/^stage-1 \(parallelism 4\): stage-0 via hash\[day\] => GroupAggregate_\d+ => sink q15$/);
  });

  it('--changelog-mode shows each node’s changelog mode: inserts below the aggregate, upserts above it', () => {
    expect(modes.code, modes.stderr).toBe(0);
    const lines = modes.stdout.split('\n');
    expect(lines.find((l) => l.includes('Exchange('))).toBe('   +- Exchange(distribution=[hash[day]], changelogMode=[I])');
    expect(lines.find((l) => l.includes('GroupAggregate('))).toMatch(/, changelogMode=\[I,UA,D\]\)$/);
    expect(modes.stdout).toContain('stage-0 (parallelism 1): ');
  });

  it('--json prints a job graph (version 1, two stages) that JSON.parse accepts', () => {
    expect(json.code, json.stderr).toBe(0);
    const graph = JSON.parse(json.stdout) as {
      version: number;
      name: string;
      sources: { name: string; parallelism: number }[];
      sinks: { name: string; upsertKey?: string[] }[];
      stages: {
        id: string;
        parallelism: number;
        input: Record<string, unknown>;
        output: Record<string, unknown>;
        operators: { type: string; spec: Record<string, unknown> }[];
      }[];
    };
    expect(graph.version).toBe(1);
    expect(graph.name).toBe('nexmark-q15');
    expect(graph.sources.map((s) => s.name)).toEqual(['bid']);
    expect(graph.sinks.map((s) => [s.name, s.upsertKey])).toEqual([['q15', ['day']]]);
    expect(graph.stages).toHaveLength(2);
    const [first, second] = graph.stages;
    expect(first?.id).toBe('stage-0');
    expect(first?.parallelism).toBe(4);
    expect(first?.input).toEqual({ type: 'source', source: 'bid' });
    expect(first?.operators.map((o) => o.type)).toEqual(['Calc']);
    expect(first?.output).toEqual({ type: 'exchange', toStage: 'stage-1', distribution: { type: 'hash', keys: ['day'] } });
    expect(second?.parallelism).toBe(4);
    expect(second?.input).toEqual({ type: 'exchange', fromStage: 'stage-0', distribution: { type: 'hash', keys: ['day'] } });
    expect(second?.operators.map((o) => o.type)).toEqual(['GroupAggregate']);
    expect(second?.operators[0]?.spec.groupBy).toEqual(['day']);
    expect(second?.output).toEqual({ type: 'sink', sink: 'q15' });
  });
});
