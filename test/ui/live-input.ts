/**
 * A live, partitioned input for page tests: a directory of named pipes (one partition each,
 * as `flambda run --input bid=DIR` reads them) fed with generated Nexmark bids at a steady
 * pace, like producers writing to the partitions of a topic. Writing can be narrowed to some
 * partitions, so the others fall silent without ending.
 */
import { execFileSync } from 'node:child_process';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { generateTable } from '../../shared/nexmark/generator.ts';
import { nexmarkJsonLine } from '../../shared/nexmark/write-files.ts';

/** Writes bids into named pipes until stopped. */
export class LivePartitions {
  readonly dir: string;
  private readonly paths: string[];
  private handles: FileHandle[] = [];
  private readonly lines: Generator<string>;
  private timer: NodeJS.Timeout | undefined;
  private writing: number[];
  private busy = false;
  /** Lines written per partition. */
  readonly written: number[];

  constructor(dir: string, partitions: number, seed: number) {
    this.dir = dir;
    this.paths = Array.from({ length: partitions }, (_, i) => join(dir, `part-${i}.jsonl`));
    execFileSync('mkfifo', this.paths);
    this.writing = this.paths.map((_, i) => i);
    this.written = this.paths.map(() => 0);
    // 1,000 events per second of event time, so the watermark moves about a second per
    // thousand events written.
    this.lines = (function* lines() {
      for (const row of generateTable({ events: 2_000_000, seed, firstEventRate: 1_000 }, 'bid')) yield nexmarkJsonLine(row as unknown as Record<string, unknown>);
    })();
  }

  /** Opens the pipes (waits until the reader has opened them too) and writes `perTick` bids every `everyMs`. */
  async start(perTick: number, everyMs: number): Promise<void> {
    this.handles = await Promise.all(this.paths.map((p) => open(p, 'w')));
    this.timer = setInterval(() => void this.tick(perTick), everyMs);
  }

  /** From now on write only to these partitions (the others stay open and silent). */
  only(partitions: readonly number[]): void {
    this.writing = [...partitions];
  }

  private async tick(count: number): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const chunks: string[][] = this.paths.map(() => []);
      for (let i = 0; i < count; i++) {
        const line = this.lines.next();
        if (line.done === true) break;
        const partition = this.writing[i % this.writing.length] as number;
        (chunks[partition] as string[]).push(line.value);
      }
      await Promise.all(
        chunks.map(async (lines, i) => {
          if (lines.length === 0) return;
          await (this.handles[i] as FileHandle).write(`${lines.join('\n')}\n`);
          (this.written as number[])[i] = (this.written[i] as number) + lines.length;
        }),
      );
    } finally {
      this.busy = false;
    }
  }

  /** Stops writing and closes the pipes: the partitions end. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    while (this.busy) await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.allSettled(this.handles.map((h) => h.close()));
    this.handles = [];
  }
}
