/**
 * Generated Nexmark events in the shape of the benchmark's own source table (its `ddl` has one
 * `datagen` table with an `event_type` and a `ROW<…>` column per event kind, camelCase fields):
 *
 * ```json
 * {"event_type":2,"person":null,"auction":null,
 *  "bid":{"auction":1000,"bidder":1001,"price":42,"channel":"Google","url":"…","dateTime":"2015-07-15 00:00:00.000","extra":"…"}}
 * ```
 *
 * `examples/sql/nexmark/ddl-nested.sql` declares that table over such a file, with the computed
 * event time and the `person`, `auction` and `bid` views of the benchmark's DDL.
 */
import { formatTimestamp } from '../core/timestamp.ts';
import type { NexmarkOptions } from './config.ts';
import { generate, type NexmarkEvent } from './generator.ts';

/** The benchmark's event type codes: 0 person, 1 auction, 2 bid. */
const EVENT_TYPE = { person: 0, auction: 1, bid: 2 } as const;

/** The nested row of one event, with the benchmark's camelCase field names. */
function nestedRow(event: NexmarkEvent): Record<string, unknown> {
  switch (event.table) {
    case 'person': {
      const p = event.row;
      return { id: p.id, name: p.name, emailAddress: p.email_address, creditCard: p.credit_card, city: p.city, state: p.state, dateTime: formatTimestamp(p.date_time), extra: p.extra };
    }
    case 'auction': {
      const a = event.row;
      return {
        id: a.id,
        itemName: a.item_name,
        description: a.description,
        initialBid: a.initial_bid,
        reserve: a.reserve,
        dateTime: formatTimestamp(a.date_time),
        expires: formatTimestamp(a.expires),
        seller: a.seller,
        category: a.category,
        extra: a.extra,
      };
    }
    case 'bid': {
      const b = event.row;
      return { auction: b.auction, bidder: b.bidder, price: b.price, channel: b.channel, url: b.url, dateTime: formatTimestamp(b.date_time), extra: b.extra };
    }
  }
}

/** One event as a JSON line of the benchmark's source table (see the module header). */
export function nexmarkEventJsonLine(event: NexmarkEvent): string {
  return JSON.stringify({
    event_type: EVENT_TYPE[event.table],
    person: event.table === 'person' ? nestedRow(event) : null,
    auction: event.table === 'auction' ? nestedRow(event) : null,
    bid: event.table === 'bid' ? nestedRow(event) : null,
  });
}

/** All `options.events` events as JSON lines of the benchmark's source table, in stream order. */
export function* nexmarkEventJsonLines(options: NexmarkOptions): Generator<string> {
  for (const event of generate(options)) yield nexmarkEventJsonLine(event);
}
