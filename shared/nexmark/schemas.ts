/**
 * The three Nexmark tables as `flambda nexmark generate` writes them (`*.jsonl`) and
 * `examples/nexmark/schemas.ts` spell them: snake_case columns, ids and prices BIGINT, times
 * TIMESTAMP(3) (epoch milliseconds in the engine, `YYYY-MM-DD HH:MM:SS.mmm` UTC in JSON lines).
 */

/** The person table. */
export const PERSON = {
  id: 'BIGINT',
  name: 'VARCHAR',
  email_address: 'VARCHAR',
  credit_card: 'VARCHAR',
  city: 'VARCHAR',
  state: 'VARCHAR',
  date_time: 'TIMESTAMP(3)',
  extra: 'VARCHAR',
} as const;

/** The auction table. */
export const AUCTION = {
  id: 'BIGINT',
  item_name: 'VARCHAR',
  description: 'VARCHAR',
  initial_bid: 'BIGINT',
  reserve: 'BIGINT',
  date_time: 'TIMESTAMP(3)',
  expires: 'TIMESTAMP(3)',
  seller: 'BIGINT',
  category: 'BIGINT',
  extra: 'VARCHAR',
} as const;

/** The bid table (the same columns and types as `BID` in examples/nexmark/schemas.ts). */
export const BID = {
  auction: 'BIGINT',
  bidder: 'BIGINT',
  price: 'BIGINT',
  channel: 'VARCHAR',
  url: 'VARCHAR',
  date_time: 'TIMESTAMP(3)',
  extra: 'VARCHAR',
} as const;

/** Schema specs by table name. */
export const NEXMARK_SCHEMAS = { person: PERSON, auction: AUCTION, bid: BID } as const;

/** A Nexmark table name. */
export type NexmarkTable = keyof typeof NEXMARK_SCHEMAS;

/** The table names, in the order of the reference's event kinds (person, auction, bid). */
export const NEXMARK_TABLES: readonly NexmarkTable[] = ['person', 'auction', 'bid'];

/** Nexmark's watermark delay: `date_time - INTERVAL '4' SECOND`. */
export const NEXMARK_WATERMARK_DELAY_MS = 4_000;

/** A person row in the engine's representation. */
export interface PersonRow {
  readonly id: number;
  readonly name: string;
  readonly email_address: string;
  readonly credit_card: string;
  readonly city: string;
  readonly state: string;
  /** Epoch milliseconds, UTC. */
  readonly date_time: number;
  readonly extra: string;
}

/** An auction row in the engine's representation. */
export interface AuctionRow {
  readonly id: number;
  readonly item_name: string;
  readonly description: string;
  readonly initial_bid: number;
  readonly reserve: number;
  readonly date_time: number;
  readonly expires: number;
  readonly seller: number;
  readonly category: number;
  readonly extra: string;
}

/** A bid row in the engine's representation. */
export interface BidRow {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly url: string;
  readonly date_time: number;
  readonly extra: string;
}

/** Row type by table name. */
export interface NexmarkRows {
  person: PersonRow;
  auction: AuctionRow;
  bid: BidRow;
}
