/**
 * The durable state of one stage shard as a changelog of compressed deltas over packed
 * key-group pages (after Flink's changelog state backend, FLIP-158) — so that DynamoDB write
 * units follow the bytes of state that change, not the number of keys a batch touches. See
 * docs/state.md for the design and its measurements.
 *
 * The operators' state stores (dynamodb-state-store.ts) still plan per-key item writes; this
 * module is the table those items live in, virtually:
 *
 * ```
 *  page       #page#<operatorId>#<keyGroup>  sk <shard>#<version>#<epoch>#<part>  every partition (key) of the
 *             key group as written by the shard at that version, and its timers; brotli JSON
 *  manifest   #manifest#<stage>#<shard>      sk <version>                  page id → the page items in force
 *  segment    #clog#<stage>#<shard>          sk <version>#<epoch>#<part>   one commit's item writes and timer
 *             changes (brotli JSON), with a DynamoDB TTL far past the next materialization
 *  checkpoint data.state = { m: manifest version (-1: none), b: changelog bytes since, s: first segment's time }
 * ```
 *
 * A commit writes one segment (a few KB for hundreds of keys) before the checkpoint's
 * conditional commit; the checkpoint then names the state as "manifest m + segments m+1..v".
 * When the segments since the last manifest outgrow {@link ShardStateOptions.materializeAfterBytes}
 * (at least twice the pages they change, so rewriting pages costs at most half the changelog),
 * or their first is older than {@link MATERIALIZE_AFTER_MS}, the commit instead writes the pages
 * its changes touch plus a new manifest, and the pages it replaced are deleted after the commit.
 *
 * Reads: a warm container keeps the changes since the manifest in memory (the overlay) and a
 * bounded cache of decoded pages; a key's items are its page's items overlaid with the overlay.
 * A cold task reads the manifest (one GetItem) and the segments since it (one Query), then
 * loads pages by key group as keys are prefetched — in bulk, a key group per read.
 *
 * Resharding: pages and segments carry the keys (and timers) of the shard's hash range. A shard
 * with no checkpoint of its own starts from its parents' (the closed shards it was split or
 * merged from, ListShards): their manifests' pages and their segments, keeping the keys that hash
 * into its own range, and materializes at its first commit, so it never needs them again.
 *
 * Writes happen only under the checkpoint lease (the caller's `keepLease` before each). Segment
 * and page items carry the writer's fencing epoch in their sort key, so an attempt that wrote
 * them and then failed before its commit leaves items a later attempt never overwrites but
 * outranks: per version, only the highest epoch's segment counts, and a manifest names the
 * epoch of each page. A stage whose operators declare state writes a segment at every commit
 * (an empty one when nothing changed), so a failed attempt's segment never stands for a commit.
 */
import { Buffer } from 'node:buffer';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { FlambdaError } from '../../core/errors.ts';
import { keyGroupOfHash, keyGroupsOfRange } from '../../partition/key-groups.ts';
import { md5HashKey } from '../../partition/kinesis-hash.ts';
import type { HashKeyRange } from '../../partition/shard-ranges.ts';
import type { Timer } from '../../state/state.ts';
import { forEachLimited } from './concurrency.ts';
import { toStateError } from './errors.ts';
import type { Item } from './item-codec.ts';
import { fromPlainItem, toPlainItem, type PlainItem } from './plain-item.ts';
import { batchWrite } from './table-io.ts';
import type { BatchWriteOptions, DynamoDbSender, IoCounters } from './table-io.ts';

/** Compressed bytes per page or segment item (DynamoDB's item limit is 400 KB). */
const PART_BYTES = 350 * 1024;

/** A changelog older than this is materialized at the next commit (segments expire after {@link SEGMENT_TTL_MS}). */
export const MATERIALIZE_AFTER_MS = 7 * 24 * 3600 * 1000;

/** DynamoDB TTL of a segment: long past the materialization that makes it unneeded. */
export const SEGMENT_TTL_MS = 30 * 24 * 3600 * 1000;

/** Default changelog bytes since the last manifest before a commit materializes. */
export const DEFAULT_MATERIALIZE_AFTER_BYTES = 512 * 1024;

/** What a commit stores in the checkpoint about the state. */
export interface StateRef {
  /** Version of the manifest in force; -1 when there is none (no page yet). */
  readonly m: number;
  /** Compressed changelog bytes since that manifest. */
  readonly b: number;
  /** Write time (epoch ms) of the first segment since it; absent when there is none. */
  readonly s?: number;
}

/** Options of {@link ShardState}. */
export interface ShardStateOptions {
  readonly client: DynamoDbSender;
  readonly tableName: string;
  readonly stage: string;
  readonly shardId: string;
  readonly keyGroups: number;
  /** The shard's hash-key range (looked up only when the state is first used). */
  readonly range: () => Promise<HashKeyRange>;
  /** Called once the committed state has been read (at first use). */
  readonly onLoaded?: (stats: StateLoadStats) => void;
  /** Request counters. */
  readonly io: IoCounters;
  /** Batch write settings (retries, concurrency). */
  readonly write: Omit<BatchWriteOptions, 'client' | 'tableName'>;
  /** Wall clock for segment TTLs and changelog age. @default Date.now */
  readonly now?: () => number;
  /** Materialize once the changelog since the manifest exceeds this (and twice the pages it touches). @default 512 KiB */
  readonly materializeAfterBytes?: number;
  /** Most (estimated, decoded) bytes of pages kept in memory. @default 64 MiB */
  readonly pageCacheBytes?: number;
}

/** One page item in force: written by `shard` at `version`, in `parts` items. */
type PageRef = readonly [shard: string, version: number, epoch: number, parts: number];

/** One partition (a key's state, or an operator's timers of one key group) of a page. */
interface Partition {
  /** The state key; undefined for a timer partition. */
  readonly key: string | undefined;
  readonly items: Map<string, Item>;
}

/** A decoded page: partitions by pk, timers by identity. */
interface Page {
  readonly partitions: Map<string, Partition>;
  readonly timers: Map<string, Timer>;
  bytes: number;
}

/** The changes to one page since the manifest: items (null: deleted), timers (null: deleted). */
interface PageDelta {
  readonly partitions: Map<string, { key: string | undefined; items: Map<string, Item | null> }>;
  readonly timers: Map<string, Timer | null>;
}

/** A timer change, as the timer journal reports it. */
export interface TimerChange {
  readonly operatorId: string;
  readonly timer: Timer;
  /** Registered (true) or removed (false). */
  readonly pending: boolean;
}

/** The writes of one commit: the stores' item writes (with each partition's state key) and the timer changes. */
export interface StateChanges {
  readonly writes: readonly WriteRequest[];
  /** State key of every pk written. */
  readonly keys: ReadonlyMap<string, string>;
  readonly timers: readonly TimerChange[];
}

/** A commit staged by {@link ShardState.stage}: the checkpoint's state ref, and what to do once committed. */
export interface StagedState {
  readonly ref: StateRef;
  /** Whether the commit materialized pages (else it wrote a segment, or nothing). */
  readonly materialized: boolean;
  /** Compressed bytes written (segment or pages and manifest). */
  readonly bytes: number;
  /** Uncompressed bytes of this commit's changes, by operator (to share `bytes` out). */
  readonly rawBytesByOperator: ReadonlyMap<string, number>;
  /** After the checkpoint commit succeeded: forget the changelog (if materialized) and delete replaced pages. */
  committed(keepLease: () => Promise<void>): Promise<void>;
}

/** Cold-start figures, for the bench and metrics. */
export interface StateLoadStats {
  /** Segments read at the cold start (own and inherited). */
  readonly segments: number;
  /** Compressed bytes of them. */
  readonly bytes: number;
  /** Parent shards whose state was inherited. */
  readonly inheritedFrom: readonly string[];
}

function compress(value: unknown): Buffer {
  const text = Buffer.from(JSON.stringify(value), 'utf8');
  return brotliCompressSync(text, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: text.length } });
}

function decompress(parts: readonly Uint8Array[], what: string): unknown {
  try {
    return JSON.parse(brotliDecompressSync(Buffer.concat(parts)).toString('utf8'));
  } catch (error) {
    throw new FlambdaError(`${what} is corrupt: ${(error as Error).message}`, 'internal', 'fail', { cause: error });
  }
}

function splitParts(data: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length || parts.length === 0; i += PART_BYTES) parts.push(data.subarray(i, i + PART_BYTES));
  return parts;
}

/** Zero-padded version: sort keys order as numbers. */
function pad(version: number): string {
  return String(version).padStart(12, '0');
}

function timerIdentity(t: Timer): string {
  return `${t.domain}:${t.timestamp}:${t.key.length}:${t.key}${t.namespace}`;
}

/** The page a state pk (`<op>#<kg>#<key>`) or timer pk (`<op>#timers#<kg>`) belongs to: `<op>#<kg>`. */
function pageIdOf(pk: string): string {
  const first = pk.indexOf('#');
  const second = pk.indexOf('#', first + 1);
  const group = pk.slice(first + 1, second < 0 ? undefined : second);
  if (group === 'timers') return `${pk.slice(0, first)}#${pk.slice(second + 1)}`;
  return `${pk.slice(0, first)}#${group}`;
}

function inRange(key: string, range: HashKeyRange): boolean {
  const hash = md5HashKey(key);
  return hash >= range.startingHashKey && hash <= range.endingHashKey;
}

/** Encoded timer: [domain e|p, timestamp, key, namespace]. */
type PlainTimer = [string, number | string, string, string];

function encodeTimer(t: Timer): PlainTimer {
  // ±Infinity does not survive JSON.
  return [t.domain === 'event' ? 'e' : 'p', Number.isFinite(t.timestamp) ? t.timestamp : String(t.timestamp), t.key, t.namespace];
}

function decodeTimer(p: PlainTimer): Timer {
  return { domain: p[0] === 'e' ? 'event' : 'processing', timestamp: Number(p[1]), key: p[2], namespace: p[3] };
}

/** Segment text: w = item writes [pk, key|null, sk, item|null]; t = timer changes [op, timer, 1|0]. */
interface SegmentBody {
  readonly w: [string, string | null, string, PlainItem | null][];
  readonly t: [string, PlainTimer, number][];
}

/** Page text: p = partitions [pk, key|null, items]; t = timers. */
interface PageBody {
  readonly p: [string, string | null, PlainItem[]][];
  readonly t: PlainTimer[];
}

/** The durable state of one stage shard; see the module documentation. */
export class ShardState {
  private readonly options: ShardStateOptions;
  private readonly now: () => number;
  private readonly manifestPk: string;
  private readonly segmentPk: string;
  /** Page id → the page items in force. */
  private manifest = new Map<string, PageRef[]>();
  private ref: StateRef = { m: -1, b: 0 };
  private readonly overlay = new Map<string, PageDelta>();
  private readonly pages = new Map<string, Page>();
  private readonly loadingPages = new Map<string, Promise<Page>>();
  private pageBytes = 0;
  /** The state came from parent shards and is not materialized under this shard yet. */
  private inherited = false;
  private loadStats: StateLoadStats = { segments: 0, bytes: 0, inheritedFrom: [] };
  private readonly load: () => Promise<void>;
  private loading: Promise<void> | undefined;
  private rangeValue: HashKeyRange = { startingHashKey: 0n, endingHashKey: 0n };

  private constructor(options: ShardStateOptions, load: (state: ShardState) => Promise<void>) {
    this.options = options;
    this.load = () => load(this);
    this.now = options.now ?? Date.now;
    this.manifestPk = `#manifest#${options.stage}#${options.shardId}`;
    this.segmentPk = `#clog#${options.stage}#${options.shardId}`;
  }

  /**
   * The state as committed: `ref` (from the shard's checkpoint, at `version`), or — for a shard
   * without a checkpoint — its parents' state (`parents` lists a shard's parent shard ids). It
   * is read at first use, so a stage whose operators keep no state reads nothing.
   */
  static open(
    options: ShardStateOptions,
    committed: { readonly ref: StateRef | undefined; readonly version: number },
    parents: (shardId: string) => Promise<readonly string[]>,
  ): ShardState {
    return new ShardState(options, async (state) => {
      state.rangeValue = await options.range();
      if (committed.ref !== undefined) {
        await state.loadOwn(committed.ref, committed.version);
      } else if (committed.version === 0) {
        await state.inherit(options.shardId, parents);
      } else {
        throw new FlambdaError(
          `stage ${options.stage} shard ${options.shardId}: the checkpoint (version ${committed.version}) holds no changelog state reference — ` +
            'it was written by a Flambda version that kept state as one item per key; drain the pipeline before upgrading',
          'internal',
          'fail',
        );
      }
      options.onLoaded?.(state.loadStats);
    });
  }

  /** Reads the committed state once. */
  private ensure(): Promise<void> {
    return (this.loading ??= this.load());
  }

  /** What the cold start read. */
  get loaded(): StateLoadStats {
    return this.loadStats;
  }

  /** The current state ref (as last staged; the committed one before the first use). */
  get current(): StateRef {
    return this.ref;
  }

  /** Every item of partition `pk`, as committed plus the staged changes. */
  async partition(pk: string): Promise<Item[]> {
    await this.ensure();
    const pageId = pageIdOf(pk);
    const page = await this.page(pageId);
    const base = page.partitions.get(pk)?.items;
    const delta = this.overlay.get(pageId)?.partitions.get(pk)?.items;
    if (delta === undefined) return base === undefined ? [] : [...base.values()];
    const merged = new Map(base);
    for (const [sk, item] of delta) {
      if (item === null) merged.delete(sk);
      else merged.set(sk, item);
    }
    return [...merged.values()];
  }

  /** Every timer of `operatorId` whose key hashes into the shard's range, in time order. */
  async timers(operatorId: string): Promise<Timer[]> {
    await this.ensure();
    const span = keyGroupsOfRange(this.rangeValue, this.options.keyGroups);
    const groups: number[] = [];
    for (let g = span.startKeyGroup; g <= span.endKeyGroup; g++) groups.push(g);
    const out: Timer[] = [];
    await forEachLimited(groups, 16, async (group) => {
      const pageId = `${operatorId}#${group}`;
      const page = await this.page(pageId);
      const timers = new Map(page.timers);
      for (const [id, t] of this.overlay.get(pageId)?.timers ?? []) {
        if (t === null) timers.delete(id);
        else timers.set(id, t);
      }
      for (const t of timers.values()) if (inRange(t.key, this.rangeValue)) out.push(t);
    });
    return out.sort((a, b) => (a.timestamp === b.timestamp ? 0 : a.timestamp < b.timestamp ? -1 : 1));
  }

  /**
   * Makes `changes` durable for commit `version`, before the checkpoint's commit: as one segment,
   * or by materializing pages. Applies them to the in-memory state at once: when the checkpoint
   * commit fails, the caller must drop this object (the stage handler drops the whole task).
   */
  async stage(version: number, epoch: number, changes: StateChanges, always: boolean, keepLease: () => Promise<void>): Promise<StagedState> {
    if (!always && changes.writes.length === 0 && changes.timers.length === 0) return { ref: this.ref, materialized: false, bytes: 0, rawBytesByOperator: new Map(), committed: () => Promise.resolve() };
    await this.ensure();
    const body: SegmentBody = { w: [], t: [] };
    for (const w of changes.writes) {
      const item = (w.PutRequest?.Item ?? w.DeleteRequest?.Key) as Item | undefined;
      const pk = item?.pk?.S;
      const sk = item?.sk?.S;
      if (pk === undefined || sk === undefined) throw new FlambdaError('state changelog: a write request without pk and sk', 'internal', 'fail');
      body.w.push([pk, changes.keys.get(pk) ?? null, sk, w.PutRequest?.Item === undefined ? null : toPlainItem(w.PutRequest.Item, 'state changelog')]);
    }
    for (const c of changes.timers) body.t.push([c.operatorId, encodeTimer(c.timer), c.pending ? 1 : 0]);
    const raw = new Map<string, number>();
    const count = (op: string, value: unknown): void => void raw.set(op, (raw.get(op) ?? 0) + JSON.stringify(value).length);
    for (const w of body.w) count(w[0].slice(0, w[0].indexOf('#')), w);
    for (const t of body.t) count(t[0], t);
    this.apply(body, undefined);
    const empty = body.w.length === 0 && body.t.length === 0;
    if (empty && !always && !this.inherited) return { ref: this.ref, materialized: false, bytes: 0, rawBytesByOperator: raw, committed: () => Promise.resolve() };

    const segment = compress(body);
    const changelogBytes = this.ref.b + segment.length;
    const threshold = this.options.materializeAfterBytes ?? DEFAULT_MATERIALIZE_AFTER_BYTES;
    const old = this.ref.s !== undefined && this.now() - this.ref.s > MATERIALIZE_AFTER_MS;
    if (this.inherited || old || (changelogBytes > threshold && changelogBytes > 2 * this.touchedPageBytes())) {
      return { ...(await this.materialize(version, epoch, keepLease)), rawBytesByOperator: raw };
    }
    const parts = splitParts(segment);
    const ttl = String(Math.ceil((this.now() + SEGMENT_TTL_MS) / 1000));
    const puts: WriteRequest[] = parts.map((data, i) => ({
      PutRequest: { Item: { pk: { S: this.segmentPk }, sk: { S: `${pad(version)}#${pad(epoch)}#${i}` }, d: { B: data }, n: { N: String(parts.length) }, ttl: { N: ttl } } },
    }));
    await keepLease();
    await this.writeItems(puts);
    this.ref = { m: this.ref.m, b: changelogBytes, s: this.ref.s ?? this.now() };
    return { ref: this.ref, materialized: false, bytes: segment.length, rawBytesByOperator: raw, committed: () => Promise.resolve() };
  }

  /** Writes the pages the overlay changes and a manifest at `version`. */
  private async materialize(version: number, epoch: number, keepLease: () => Promise<void>): Promise<Omit<StagedState, 'rawBytesByOperator'>> {
    const manifest = new Map(this.manifest);
    const superseded: WriteRequest[] = [];
    const pageItems: WriteRequest[] = [];
    const newPages = new Map<string, Page>();
    const nowSeconds = Math.floor(this.now() / 1000);
    let bytes = 0;
    const pageIds = new Set(this.overlay.keys());
    if (this.inherited) for (const id of this.manifest.keys()) pageIds.add(id);
    for (const pageId of pageIds) {
      const page = this.merged(await this.page(pageId), this.overlay.get(pageId), nowSeconds);
      newPages.set(pageId, page);
      for (const [shard, v, e, parts] of this.manifest.get(pageId) ?? []) {
        if (shard !== this.options.shardId) continue;
        for (let i = 0; i < parts; i++) superseded.push({ DeleteRequest: { Key: { pk: { S: `#page#${pageId}` }, sk: { S: `${shard}#${pad(v)}#${pad(e)}#${i}` } } } });
      }
      if (page.partitions.size === 0 && page.timers.size === 0) {
        manifest.delete(pageId);
        continue;
      }
      const body: PageBody = { p: [], t: [] };
      for (const [pk, part] of page.partitions) body.p.push([pk, part.key ?? null, [...part.items.values()].map((item) => toPlainItem(item, 'state page'))]);
      for (const t of page.timers.values()) body.t.push(encodeTimer(t));
      const data = compress(body);
      bytes += data.length;
      const parts = splitParts(data);
      parts.forEach((d, i) => pageItems.push({ PutRequest: { Item: { pk: { S: `#page#${pageId}` }, sk: { S: `${this.options.shardId}#${pad(version)}#${pad(epoch)}#${i}` }, d: { B: d } } } }));
      manifest.set(pageId, [[this.options.shardId, version, epoch, parts.length]]);
    }
    const manifestData = compress([...manifest]);
    bytes += manifestData.length;
    if (manifestData.length > PART_BYTES) throw new FlambdaError(`state manifest of ${this.options.stage}/${this.options.shardId} outgrew one item (${manifestData.length} bytes)`, 'internal', 'fail');
    await keepLease();
    await this.writeItems(pageItems);
    await keepLease();
    await this.put({ pk: { S: this.manifestPk }, sk: { S: pad(version) }, d: { B: manifestData } });
    if (this.ref.m >= 0) superseded.push({ DeleteRequest: { Key: { pk: { S: this.manifestPk }, sk: { S: pad(this.ref.m) } } } });
    this.ref = { m: version, b: 0 };
    return {
      ref: this.ref,
      materialized: true,
      bytes,
      committed: async (keep) => {
        this.manifest = manifest;
        this.overlay.clear();
        this.inherited = false;
        for (const [pageId, page] of newPages) this.cachePage(pageId, page);
        if (superseded.length > 0) {
          await keep();
          await this.writeItems(superseded);
        }
      },
    };
  }

  /** Estimated compressed bytes of the pages the overlay touches (decoded bytes / 4). */
  private touchedPageBytes(): number {
    let bytes = 0;
    for (const pageId of this.overlay.keys()) bytes += (this.pages.get(pageId)?.bytes ?? 0) / 4;
    return bytes;
  }

  /** A copy of `page` with `delta` applied and items past their DynamoDB TTL dropped. */
  private merged(page: Page, delta: PageDelta | undefined, nowSeconds: number): Page {
    const partitions = new Map<string, Partition>();
    for (const [pk, part] of page.partitions) partitions.set(pk, { key: part.key, items: new Map(part.items) });
    const timers = new Map(page.timers);
    for (const [pk, change] of delta?.partitions ?? []) {
      let part = partitions.get(pk);
      if (part === undefined) partitions.set(pk, (part = { key: change.key, items: new Map() }));
      for (const [sk, item] of change.items) {
        if (item === null) part.items.delete(sk);
        else part.items.set(sk, item);
      }
    }
    for (const [id, t] of delta?.timers ?? []) {
      if (t === null) timers.delete(id);
      else timers.set(id, t);
    }
    let bytes = 0;
    for (const [pk, part] of partitions) {
      for (const [sk, item] of part.items) {
        const expires = item.ttl?.N;
        if (expires !== undefined && Number(expires) < nowSeconds) part.items.delete(sk);
        else bytes += 64 + JSON.stringify(item).length;
      }
      if (part.items.size === 0) partitions.delete(pk);
    }
    return { partitions, timers, bytes: bytes + timers.size * 64 };
  }

  /** Applies a segment to the overlay (keeping only keys in `range`, when given); returns the page ids it touched. */
  private apply(body: SegmentBody, range: HashKeyRange | undefined): Set<string> {
    const touched = new Set<string>();
    for (const [pk, key, sk, plain] of body.w) {
      if (range !== undefined && (key === null || !inRange(key, range))) continue;
      const pageId = pageIdOf(pk);
      touched.add(pageId);
      const delta = this.delta(pageId);
      let part = delta.partitions.get(pk);
      if (part === undefined) delta.partitions.set(pk, (part = { key: key ?? undefined, items: new Map() }));
      part.items.set(sk, plain === null ? null : fromPlainItem(plain));
    }
    for (const [operatorId, plain, pending] of body.t) {
      const timer = decodeTimer(plain);
      if (range !== undefined && !inRange(timer.key, range)) continue;
      const pageId = `${operatorId}#${keyGroupOfHash(md5HashKey(timer.key), this.options.keyGroups)}`;
      touched.add(pageId);
      this.delta(pageId).timers.set(timerIdentity(timer), pending === 1 ? timer : null);
    }
    return touched;
  }

  private delta(pageId: string): PageDelta {
    let delta = this.overlay.get(pageId);
    if (delta === undefined) this.overlay.set(pageId, (delta = { partitions: new Map(), timers: new Map() }));
    return delta;
  }

  /** The committed page (manifest's items), loaded once and cached. */
  private page(pageId: string): Promise<Page> {
    const cached = this.pages.get(pageId);
    if (cached !== undefined) {
      // Most recently used last.
      this.pages.delete(pageId);
      this.pages.set(pageId, cached);
      return Promise.resolve(cached);
    }
    let loading = this.loadingPages.get(pageId);
    if (loading === undefined) {
      loading = this.loadPage(pageId, this.manifest.get(pageId) ?? []).finally(() => this.loadingPages.delete(pageId));
      this.loadingPages.set(pageId, loading);
    }
    return loading;
  }

  private async loadPage(pageId: string, refs: readonly PageRef[]): Promise<Page> {
    const page: Page = { partitions: new Map(), timers: new Map(), bytes: 0 };
    for (const [shard, version, epoch, parts] of refs) {
      const prefix = `${shard}#${pad(version)}#${pad(epoch)}#`;
      const items = await this.query(`#page#${pageId}`, prefix, `${prefix}~`);
      if (items.length !== parts) throw new FlambdaError(`state page ${pageId} of shard ${shard} version ${version} has ${items.length} of ${parts} parts`, 'internal', 'fail');
      const data = items.sort((a, b) => partIndex(a) - partIndex(b)).map((i) => i.d?.B ?? new Uint8Array());
      const body = decompress(data, `state page ${pageId}`) as PageBody;
      // A parent's page holds keys of its whole range: keep this shard's.
      const filter = shard === this.options.shardId ? undefined : this.rangeValue;
      for (const [pk, key, plains] of body.p) {
        if (filter !== undefined && key !== null && !inRange(key, filter)) continue;
        let part = page.partitions.get(pk);
        if (part === undefined) page.partitions.set(pk, (part = { key: key ?? undefined, items: new Map() }));
        for (const plain of plains) {
          const item = fromPlainItem(plain);
          if (filter !== undefined && key === null && item.k?.S !== undefined && !inRange(item.k.S, filter)) continue;
          part.items.set(item.sk?.S ?? '', item);
          page.bytes += 64 + JSON.stringify(plain).length;
        }
      }
      for (const plain of body.t) {
        const t = decodeTimer(plain);
        if (filter !== undefined && !inRange(t.key, filter)) continue;
        page.timers.set(timerIdentity(t), t);
        page.bytes += 64;
      }
    }
    this.cachePage(pageId, page);
    return page;
  }

  private cachePage(pageId: string, page: Page): void {
    const previous = this.pages.get(pageId);
    if (previous !== undefined) this.pageBytes -= previous.bytes;
    this.pages.delete(pageId);
    this.pages.set(pageId, page);
    this.pageBytes += page.bytes;
    const max = this.options.pageCacheBytes ?? 64 * 1024 * 1024;
    for (const [id, p] of this.pages) {
      if (this.pageBytes <= max || id === pageId) break;
      this.pages.delete(id);
      this.pageBytes -= p.bytes;
    }
  }

  /** Loads the own manifest and the segments after it, up to `version`. */
  private async loadOwn(ref: StateRef, version: number): Promise<void> {
    this.ref = ref;
    this.manifest = ref.m < 0 ? new Map() : await this.readManifest(this.manifestPk, ref.m);
    await this.readSegments(this.segmentPk, ref, version, undefined);
  }

  /** Starts from the parents' state, filtered to this shard's range (recursively for a parent without a checkpoint). */
  private async inherit(shardId: string, parents: (shardId: string) => Promise<readonly string[]>): Promise<void> {
    const from: string[] = [];
    const visit = async (id: string): Promise<void> => {
      for (const parent of await parents(id)) {
        const checkpoint = await this.get(`#ckpt#${this.options.stage}#${parent}`, 'ckpt');
        const data = checkpoint?.data?.S === undefined ? undefined : (JSON.parse(checkpoint.data.S) as { state?: StateRef } | undefined);
        const version = Number(checkpoint?.version?.N ?? '0');
        const ref = data?.state;
        if (ref === undefined) {
          // A parent that never committed state holds none of its own: its parents' is what counts.
          await visit(parent);
          continue;
        }
        from.push(parent);
        if (ref.m >= 0) {
          for (const [pageId, refs] of await this.readManifest(`#manifest#${this.options.stage}#${parent}`, ref.m)) {
            this.manifest.set(pageId, [...(this.manifest.get(pageId) ?? []), ...refs]);
          }
        }
        await this.readSegments(`#clog#${this.options.stage}#${parent}`, ref, version, this.rangeValue);
      }
    };
    await visit(shardId);
    this.inherited = from.length > 0;
    this.loadStats = { ...this.loadStats, inheritedFrom: from };
  }

  private async readManifest(pk: string, version: number): Promise<Map<string, PageRef[]>> {
    const item = await this.get(pk, pad(version));
    if (item?.d?.B === undefined) throw new FlambdaError(`state manifest ${pk} version ${version} is missing`, 'internal', 'fail');
    return new Map(decompress([item.d.B], `state manifest ${pk}`) as [string, PageRef[]][]);
  }

  /**
   * Applies segments m+1..version of `pk` in version order — per version the highest epoch's
   * (an attempt that failed before its commit left a lower one) — and checks their bytes add up
   * to the ref's.
   */
  private async readSegments(pk: string, ref: StateRef, version: number, range: HashKeyRange | undefined): Promise<void> {
    const m = ref.m;
    if (version <= m) return;
    const items = await this.query(pk, `${pad(m + 1)}#`, `${pad(version)}#~`);
    const byVersion = new Map<number, { epoch: number; items: Item[] }>();
    for (const item of items) {
      const [v, e] = (item.sk?.S ?? '').split('#').map(Number) as [number, number];
      const of = byVersion.get(v);
      if (of === undefined || of.epoch < e) byVersion.set(v, { epoch: e, items: [item] });
      else if (of.epoch === e) of.items.push(item);
    }
    let segments = 0;
    let bytes = 0;
    for (const v of [...byVersion.keys()].sort((a, b) => a - b)) {
      const parts = (byVersion.get(v) as { items: Item[] }).items.sort((a, b) => partIndex(a) - partIndex(b));
      const expected = Number(parts[0]?.n?.N ?? '0');
      if (parts.length !== expected) {
        throw new FlambdaError(`state changelog ${pk} version ${v} has ${parts.length} of ${expected} parts (expired or lost: the changelog was not materialized in time)`, 'internal', 'fail');
      }
      const data = parts.map((p) => p.d?.B ?? new Uint8Array());
      for (const d of data) bytes += d.byteLength;
      this.apply(decompress(data, `state changelog ${pk} version ${v}`) as SegmentBody, range);
      segments++;
    }
    // Versions without a segment are commits of a stage without state; the bytes say whether any went missing.
    if (bytes !== ref.b) {
      throw new FlambdaError(`state changelog ${pk}: ${bytes} of ${ref.b} bytes found after version ${m} (segments expired or lost)`, 'internal', 'fail');
    }
    this.loadStats = { ...this.loadStats, segments: this.loadStats.segments + segments, bytes: this.loadStats.bytes + bytes };
  }

  private async get(pk: string, sk: string): Promise<Item | undefined> {
    try {
      const out = await this.options.client.send(new GetItemCommand({ TableName: this.options.tableName, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }));
      this.options.io.readRequests++;
      if (out.Item !== undefined) this.options.io.readItems++;
      return out.Item;
    } catch (error) {
      throw toStateError(error, `GetItem of ${JSON.stringify(pk)} on table '${this.options.tableName}'`);
    }
  }

  private async put(item: Item): Promise<void> {
    try {
      await this.options.client.send(new PutItemCommand({ TableName: this.options.tableName, Item: item }));
      this.options.io.writeRequests++;
      this.options.io.writeItems++;
    } catch (error) {
      throw toStateError(error, `PutItem of ${JSON.stringify(item.pk?.S)} on table '${this.options.tableName}'`);
    }
  }

  /** Items of `pk` with `from <= sk <= to`, strongly consistent, every page. */
  private async query(pk: string, from: string, to: string): Promise<Item[]> {
    const items: Item[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      let page;
      try {
        page = await this.options.client.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
            ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
            ExpressionAttributeValues: { ':pk': { S: pk }, ':from': { S: from }, ':to': { S: to } },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
      } catch (error) {
        throw toStateError(error, `Query of ${JSON.stringify(pk)} on table '${this.options.tableName}'`);
      }
      this.options.io.readRequests++;
      for (const item of page.Items ?? []) items.push(item);
      this.options.io.readItems += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return items;
  }

  private async writeItems(requests: readonly WriteRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await batchWrite(requests, { ...this.options.write, client: this.options.client, tableName: this.options.tableName }, this.options.io);
  }
}

function partIndex(item: Item): number {
  const sk = item.sk?.S ?? '';
  return Number(sk.slice(sk.lastIndexOf('#') + 1));
}

