/**
 * `WITH ('connector' = …)` options → plain-data connector specs. Sources and sinks map onto the
 * SourceConnector / SinkConnector types of the plan; lookup (dimension) tables and `datagen`
 * have no plan type yet, so they are described here (see {@link LookupTableSpec}).
 */
import { JSON_TIMESTAMP_STANDARDS } from '../core/codec.ts';
import { isPlainJson, type RecordFormat } from '../core/formats.ts';
import type { Schema } from '../core/types.ts';
import type { LookupCacheSpec } from '../lookup/cache-spec.ts';
import { parseJdbcUrl } from '../lookup/jdbc-config.ts';
import type { LookupRetrySpec } from '../lookup/resilient-source.ts';
import type { SinkConnector, SourceConnector } from '../plan/logical.ts';
import { parseDuration } from '../api/windows.ts';
import { SqlError, type SqlPosition } from './errors.ts';

/** The options of a CREATE TABLE, with the position of each key. */
export type TableOptions = ReadonlyMap<string, { readonly value: string; readonly pos: SqlPosition }>;

/** A JDBC dimension table (MySQL/MariaDB or PostgreSQL). */
export interface JdbcLookupTable {
  readonly type: 'jdbc';
  readonly url: string;
  readonly dialect: 'mysql' | 'postgresql';
  /** `table-name`. */
  readonly table: string;
  readonly user?: string;
  /** A literal `password` option (local runs). */
  readonly password?: string;
  /**
   * Where the password comes from instead: `password` = `'${secret:arn-or-name}'` (Secrets
   * Manager) or `'${env:NAME}'` (an environment variable).
   */
  readonly passwordSecret?: { readonly kind: 'secretsmanager' | 'env'; readonly ref: string };
}

/** A DynamoDB dimension table. */
export interface DynamoDbLookupTable {
  readonly type: 'dynamodb';
  readonly table: string;
  readonly region?: string;
}

/** A JSON-lines dimension table (`'connector' = 'filesystem'`); `--input name=path` binds it. */
export interface JsonlLookupTable {
  readonly type: 'jsonl';
  readonly path?: string;
}

/** A dimension table read by lookup joins, with Flink's lookup options. */
export interface LookupTableSpec {
  readonly name: string;
  readonly store: JdbcLookupTable | DynamoDbLookupTable | JsonlLookupTable;
  /** The table's columns (the dimension schema). */
  readonly schema: Schema;
  readonly cache: LookupCacheSpec;
  /** `lookup.max-retries` as attempts (retries + 1); absent: the runtime default. */
  readonly retry?: LookupRetrySpec;
  /** `lookup.enable_hash`: hash-shuffle the probe stream by the join key. */
  readonly shuffle: boolean;
  /** `lookup.cache.l2` ('dynamodb' | 'none'). */
  readonly l2?: 'dynamodb' | 'none';
  /** `lookup.cache.l2.ttl`, ms. */
  readonly l2TtlMs?: number;
}

/** `datagen` source options (Flink's DataGen SQL connector). */
export interface DatagenSpec {
  /**
   * Rows before the table ends: `number-of-rows`, or fewer when a sequence column ends first
   * (Flink's source ends with its first exhausted sequence). @default - unbounded, as in Flink
   */
  readonly rows?: number;
  /** `rows-per-second`: the pace of a deployed producer (local runs ignore it). @default 10000, Flink's */
  readonly rowsPerSecond: number;
  /** Per-column `fields.<name>.kind` / `.min` / `.max` / `.length` / `.start` / `.end`. */
  readonly fields: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Seed of the deterministic generator. */
  readonly seed: number;
}

/**
 * What a table can be used as: how it is used depends on the query (FROM: source, INSERT INTO:
 * sink, `JOIN … FOR SYSTEM_TIME AS OF`: lookup); its connector decides what it can be.
 */
export interface TableConnector {
  readonly name: string;
  readonly source?: SourceConnector;
  readonly sink?: SinkConnector;
  readonly datagen?: DatagenSpec;
  readonly lookup?: Omit<LookupTableSpec, 'name' | 'schema'>;
}

const KNOWN = 'kinesis, dynamodb, jdbc, filesystem, datagen, print, blackhole';

/**
 * Reads a table's connector options.
 *
 * @throws SqlError naming the option and its position for a missing or invalid option.
 */
export function readConnector(table: string, options: TableOptions, at: SqlPosition, inputOverride?: string): TableConnector {
  const get = (key: string): string | undefined => options.get(key)?.value;
  const posOf = (key: string): SqlPosition => options.get(key)?.pos ?? at;
  const need = (key: string): string => {
    const v = get(key);
    if (v === undefined || v === '') throw new SqlError(at, `table '${table}': option '${key}' is required for connector '${get('connector')}'`);
    return v;
  };
  const connector = get('connector');
  if (connector === undefined) throw new SqlError(at, `table '${table}': WITH ('connector' = …) is required (one of ${KNOWN})`);
  switch (connector) {
    case 'kinesis': {
      const stream = get('stream') ?? get('stream.name') ?? get('stream-name');
      const arn = get('stream.arn') ?? (stream?.startsWith('arn:') ? stream : undefined);
      const name = stream && !stream.startsWith('arn:') ? stream : undefined;
      if (!name && !arn) throw new SqlError(at, `table '${table}': option 'stream' (a Kinesis stream name or ARN) is required`);
      const format = readFormat(table, options, at);
      // The sink always names its format: a json sink writes Flink's rows, not the changelog
      // lines of a sink without one (core/format-encoders.ts).
      return {
        name: connector,
        source: { type: 'kinesis', ...(name ? { streamName: name } : {}), ...(arn ? { streamArn: arn } : {}), ...(!isPlainJson(format) ? { format } : {}) },
        sink: { type: 'kinesis', ...(name ? { streamName: name } : arn ? { streamName: arn.split('/').pop() as string } : {}), format },
      };
    }
    case 'filesystem': {
      const format = readFormat(table, options, at);
      const path = inputOverride ?? get('path');
      if (format.type !== 'json') {
        // A csv or debezium-json file is read and written (core/format-encoders.ts); the lookup store reads JSON lines only.
        return { name: connector, source: { type: 'jsonl', ...(path ? { path } : {}), format }, ...(path ? { sink: { type: 'jsonl', path, format } } : {}) };
      }
      // A json table with its timestamp standard set reads with it (and leniently without); it
      // writes Flink's rows in its standard, 'SQL' by default; as a lookup table its timestamps
      // read in either standard (the codec's lenient texts).
      const json = isPlainJson(format) ? {} : { format };
      return {
        name: connector,
        source: { type: 'jsonl', ...(path ? { path } : {}), ...json },
        ...(path ? { sink: { type: 'jsonl', path, format } } : {}),
        lookup: { store: { type: 'jsonl', ...(path ? { path } : {}) }, ...lookupOptions(table, options, at) },
      };
    }
    case 'print':
      return { name: connector, sink: { type: 'print' } };
    case 'blackhole':
      return { name: connector, sink: { type: 'blackhole' } };
    case 'datagen':
      return { name: connector, datagen: readDatagen(table, options, at) };
    case 'dynamodb': {
      const name = get('table-name') ?? get('table');
      if (!name) throw new SqlError(at, `table '${table}': option 'table-name' (the DynamoDB table) is required`);
      const region = get('aws.region') ?? get('region');
      return {
        name: connector,
        sink: { type: 'dynamodb', tableName: name },
        lookup: { store: { type: 'dynamodb', table: name, ...(region ? { region } : {}) }, ...lookupOptions(table, options, at) },
      };
    }
    case 'jdbc': {
      const url = need('url');
      let dialect: 'mysql' | 'postgresql';
      try {
        dialect = parseJdbcUrl(url).protocol;
      } catch (e) {
        throw new SqlError(posOf('url'), (e as Error).message);
      }
      const password = get('password');
      const secret = password === undefined ? undefined : /^\$\{(secret|secretsmanager|env):(.+)\}$/.exec(password);
      const user = get('username');
      const store: JdbcLookupTable = {
        type: 'jdbc',
        url,
        dialect,
        table: need('table-name'),
        ...(user !== undefined ? { user } : {}),
        ...(secret ? { passwordSecret: { kind: secret[1] === 'env' ? 'env' : 'secretsmanager', ref: secret[2] as string } } : password !== undefined ? { password } : {}),
      };
      return { name: connector, lookup: { store, ...lookupOptions(table, options, at) } };
    }
    default:
      throw new SqlError(posOf('connector'), `table '${table}': unknown connector '${connector}' (supported: ${KNOWN})`);
  }
}

/** The lookup options shared by JDBC and DynamoDB dimension tables. */
export function lookupOptions(table: string, options: TableOptions, at: SqlPosition): Omit<LookupTableSpec, 'name' | 'schema' | 'store'> {
  const get = (key: string): string | undefined => options.get(key)?.value;
  const duration = (key: string): number | undefined => {
    const v = get(key);
    if (v === undefined) return undefined;
    try {
      return parseDuration(v.replace(/^(\d+)\s*(ms|s|min|h|d)$/, '$1 $2'), `table '${table}' option '${key}'`);
    } catch (e) {
      throw new SqlError(options.get(key)?.pos ?? at, (e as Error).message);
    }
  };
  const integer = (key: string): number | undefined => {
    const v = get(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new SqlError(options.get(key)?.pos ?? at, `table '${table}': option '${key}' must be a non-negative integer (given '${v}')`);
    return n;
  };
  const bool = (key: string): boolean | undefined => {
    const v = get(key)?.toLowerCase();
    if (v === undefined) return undefined;
    if (v !== 'true' && v !== 'false') throw new SqlError(options.get(key)?.pos ?? at, `table '${table}': option '${key}' must be 'true' or 'false' (given '${get(key)}')`);
    return v === 'true';
  };
  // Flink 1.16+ `lookup.cache`, and the legacy `lookup.cache.max-rows` / `lookup.cache.ttl`.
  const maxRows = integer('lookup.partial-cache.max-rows') ?? integer('lookup.cache.max-rows');
  const cacheType = (get('lookup.cache') ?? (maxRows !== undefined ? 'PARTIAL' : 'NONE')).toUpperCase();
  let cache: LookupCacheSpec;
  if (cacheType === 'PARTIAL') {
    if (maxRows === undefined) throw new SqlError(options.get('lookup.cache')?.pos ?? at, `table '${table}': 'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows'`);
    const write = duration('lookup.partial-cache.expire-after-write') ?? duration('lookup.cache.ttl');
    const access = duration('lookup.partial-cache.expire-after-access');
    const missing = bool('lookup.partial-cache.cache-missing-key');
    cache = {
      type: 'PARTIAL',
      maxRows,
      ...(write !== undefined ? { expireAfterWriteMs: write } : {}),
      ...(access !== undefined ? { expireAfterAccessMs: access } : {}),
      ...(missing !== undefined ? { cacheMissingKey: missing } : {}),
    };
  } else if (cacheType === 'FULL') {
    const reload = duration('lookup.full-cache.periodic-reload.interval');
    cache = { type: 'FULL', ...(reload !== undefined ? { reloadIntervalMs: reload } : {}) };
  } else if (cacheType === 'NONE') {
    cache = { type: 'NONE' };
  } else {
    throw new SqlError(options.get('lookup.cache')?.pos ?? at, `table '${table}': 'lookup.cache' must be NONE, PARTIAL or FULL (given '${get('lookup.cache')}')`);
  }
  const retries = integer('lookup.max-retries');
  const l2 = get('lookup.cache.l2')?.toLowerCase();
  if (l2 !== undefined && l2 !== 'dynamodb' && l2 !== 'none') {
    throw new SqlError(options.get('lookup.cache.l2')?.pos ?? at, `table '${table}': 'lookup.cache.l2' must be 'dynamodb' or 'none' (given '${l2}')`);
  }
  const l2Ttl = duration('lookup.cache.l2.ttl');
  return {
    ...(l2 !== undefined ? { l2 } : {}),
    ...(l2Ttl !== undefined ? { l2TtlMs: l2Ttl } : {}),
    cache,
    ...(retries !== undefined ? { retry: { maxAttempts: retries + 1, delayMs: 100, onMiss: false } } : {}),
    shuffle: bool('lookup.enable_hash') ?? false,
  };
}

/**
 * The table's `'format'`: `json` (the default) or `csv` with Flink's `csv.*` options
 * (core/formats.ts).
 *
 * @throws SqlError for another format or a bad csv option, at the option.
 */
function readFormat(table: string, options: TableOptions, at: SqlPosition): RecordFormat {
  const format = options.get('format') ?? options.get('value.format');
  const name = format?.value.toLowerCase() ?? 'json';
  if (name === 'json') return readJsonFormat(table, options);
  if (name === 'debezium-json') return { type: 'debezium-json' };
  if (name !== 'csv') throw new SqlError(format?.pos ?? at, `table '${table}': 'format' = '${format?.value}' is not supported (use 'json', 'csv' or 'debezium-json')`);
  const text = (key: string): string | undefined => options.get(`csv.${key}`)?.value;
  const flag = (key: string): boolean | undefined => {
    const v = text(key)?.toLowerCase();
    if (v === undefined) return undefined;
    if (v !== 'true' && v !== 'false') throw new SqlError(options.get(`csv.${key}`)?.pos ?? at, `table '${table}': 'csv.${key}' must be 'true' or 'false' (given '${v}')`);
    return v === 'true';
  };
  const char = (key: string): string | undefined => {
    const raw = text(key);
    if (raw === undefined) return undefined;
    // Flink writes a tab as '\t'.
    const v = raw === '\\t' ? '\t' : raw;
    if (v.length !== 1) throw new SqlError(options.get(`csv.${key}`)?.pos ?? at, `table '${table}': 'csv.${key}' must be a single character (given '${raw}')`);
    return v;
  };
  for (const [key, { pos }] of options) {
    if (key.startsWith('csv.') && !CSV_OPTIONS.includes(key.slice(4))) {
      throw new SqlError(pos, `table '${table}': unknown csv option '${key}' (supported: ${CSV_OPTIONS.map((k) => `csv.${k}`).join(', ')})`);
    }
  }
  const delimiter = char('field-delimiter');
  const quote = flag('disable-quote-character') === true ? null : char('quote-character');
  const ignore = flag('ignore-parse-errors');
  const comments = flag('allow-comments');
  const nullLiteral = text('null-literal');
  return {
    type: 'csv',
    ...(delimiter !== undefined ? { fieldDelimiter: delimiter } : {}),
    ...(quote !== undefined ? { quoteCharacter: quote } : {}),
    ...(nullLiteral !== undefined ? { nullLiteral } : {}),
    ...(ignore !== undefined ? { ignoreParseErrors: ignore } : {}),
    ...(comments !== undefined ? { allowComments: comments } : {}),
  };
}

/**
 * The json format's options: `json.timestamp-format.standard`, 'SQL' or 'ISO-8601' (exactly, as
 * Flink's JsonFormatOptionsUtil checks); Flink's other json options are accepted and not read.
 *
 * @throws SqlError for another value of the standard, at the option.
 */
function readJsonFormat(table: string, options: TableOptions): RecordFormat {
  const option = options.get(JSON_TIMESTAMP_STANDARD) ?? options.get(`value.${JSON_TIMESTAMP_STANDARD}`);
  if (option === undefined) return { type: 'json' };
  const standard = JSON_TIMESTAMP_STANDARDS.find((s) => s === option.value);
  if (standard === undefined) {
    throw new SqlError(option.pos, `table '${table}': Unsupported value '${option.value}' for ${JSON_TIMESTAMP_STANDARD}. Supported values are [${JSON_TIMESTAMP_STANDARDS.join(', ')}].`);
  }
  return { type: 'json', timestampStandard: standard };
}

/** Flink's json option naming the timestamp texts. */
const JSON_TIMESTAMP_STANDARD = 'json.timestamp-format.standard';

/** The csv options read (Flink's names without the `csv.` prefix). */
const CSV_OPTIONS = ['field-delimiter', 'quote-character', 'disable-quote-character', 'ignore-parse-errors', 'allow-comments', 'null-literal'];

function readDatagen(table: string, options: TableOptions, at: SqlPosition): DatagenSpec {
  const fields = new Map<string, Map<string, string>>();
  for (const [key, { value }] of options) {
    const m = /^fields\.([^.]+)\.(.+)$/.exec(key);
    if (!m) continue;
    const column = m[1] as string;
    if (!fields.has(column)) fields.set(column, new Map());
    fields.get(column)?.set(m[2] as string, value);
  }
  const count = (key: string): number | undefined => {
    const option = options.get(key);
    if (option === undefined) return undefined;
    const n = Number(option.value);
    if (!Number.isSafeInteger(n) || n < 0) throw new SqlError(option.pos, `table '${table}': '${key}' must be a non-negative integer (given '${option.value}')`);
    return n;
  };
  let rows = count('number-of-rows');
  const rowsPerSecond = count('rows-per-second') ?? 10_000;
  if (rowsPerSecond === 0) throw new SqlError(options.get('rows-per-second')?.pos ?? at, `table '${table}': 'rows-per-second' must be at least 1`);
  // A sequence runs from start to end and the source ends with the first sequence that does
  // (Flink's SequenceGenerator requires both bounds).
  for (const [column, o] of fields) {
    if (o.get('kind') !== 'sequence') continue;
    const bound = (name: 'start' | 'end'): number => {
      const key = `fields.${column}.${name}`;
      const text = o.get(name);
      const n = Number(text);
      if (text === undefined || text.trim() === '' || !Number.isSafeInteger(n)) {
        throw new SqlError(options.get(key)?.pos ?? options.get(`fields.${column}.kind`)?.pos ?? at, `table '${table}': the sequence column '${column}' needs '${key}', an integer (given ${text === undefined ? 'none' : `'${text}'`})`);
      }
      return n;
    };
    const start = bound('start');
    const end = bound('end');
    if (end < start) throw new SqlError(options.get(`fields.${column}.end`)?.pos ?? at, `table '${table}': 'fields.${column}.end' (${end}) is below 'fields.${column}.start' (${start})`);
    rows = Math.min(rows ?? Infinity, end - start + 1);
  }
  return { ...(rows !== undefined ? { rows } : {}), rowsPerSecond, fields, seed: 42 };
}
