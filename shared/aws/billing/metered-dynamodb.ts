/**
 * A DynamoDB client decorator that counts what DynamoDB bills for every item request sent
 * through it — read and write units from the sizes of the items actually written and read
 * (dynamodb-units.ts) — beside the request counts. Benchmarks wrap their client in one meter per
 * thing to price (a state backend, its baseline) and read {@link MeteredDynamoDb.usage}.
 *
 * The unit rules need sizes the responses do not carry: a PutItem or DeleteItem is priced on
 * the item it replaces or deletes, an UpdateItem on the larger of the item before and after. The
 * meter therefore keeps the size of every item written through it (keyed by `keyAttributes`),
 * and after an UpdateItem that did not ask for `ReturnValues: 'ALL_NEW'` it reads the item back
 * (strongly consistent, through the wrapped client, not counted) to learn its new size. Prices
 * are exact when every write to the items goes through the meter (a table that starts empty);
 * an item written by another client counts as absent until the meter has seen it.
 *
 * Requests the meter cannot price from what it sees — a Query or Scan with a filter or
 * `Select: 'COUNT'` (the items it evaluated are not all returned), PartiQL statements and
 * transactions — are refused with an error rather than under-counted. Control-plane requests
 * (CreateTable, DescribeTable, …) pass through uncounted: they are not billed per request.
 */
import {
  BatchExecuteStatementCommand,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  AttributeValue,
  BatchGetItemCommandOutput,
  BatchWriteItemCommandOutput,
  GetItemCommandOutput,
  QueryCommandOutput,
  UpdateItemCommandOutput,
  WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { FlambdaError } from '../../core/errors.ts';
import type { DynamoDbSender } from '../state/table-io.ts';
import {
  deleteWriteUnits,
  failedConditionWriteUnits,
  getItemReadUnits,
  itemSize,
  putWriteUnits,
  queryReadUnits,
  updateWriteUnits,
  type ItemLike,
  type ReadConsistency,
} from './dynamodb-units.ts';

/** Requests, units and items counted so far (bumped in place). */
export interface DynamoDbUsage {
  /** GetItem, BatchGetItem, Query and Scan requests (pages), answered. */
  readRequests: number;
  /** PutItem, UpdateItem, DeleteItem and BatchWriteItem requests, answered or failed on their condition. */
  writeRequests: number;
  /** Read units (read request units, on demand). */
  readUnits: number;
  /** Write units (write request units, on demand). */
  writeUnits: number;
  /** Items returned by reads. */
  itemsRead: number;
  /** Items put, updated or deleted (not failed conditions, not UnprocessedItems). */
  itemsWritten: number;
}

/** One priced request, for {@link MeteredDynamoDbOptions.onRequest}. */
export interface PricedRequest {
  /** The command's name, e.g. `BatchWriteItemCommand`. */
  readonly command: string;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Whether the request failed on its condition (still billed). */
  readonly conditionFailed: boolean;
}

/** Options of {@link meterDynamoDb}. */
export interface MeteredDynamoDbOptions {
  /** The key attributes of the tables used through the meter (partition key, then sort key if any). */
  readonly keyAttributes: readonly string[];
  /** Called after every priced request with its units. */
  readonly onRequest?: (request: PricedRequest) => void;
}

/** A DynamoDB client that counts billed units; send requests through it as through the client. */
export interface MeteredDynamoDb extends DynamoDbSender {
  readonly usage: Readonly<DynamoDbUsage>;
}

/** Zeroed {@link DynamoDbUsage}. */
export function newDynamoDbUsage(): DynamoDbUsage {
  return { readRequests: 0, writeRequests: 0, readUnits: 0, writeUnits: 0, itemsRead: 0, itemsWritten: 0 };
}

type Item = Record<string, AttributeValue>;

function consistency(consistentRead: boolean | undefined): ReadConsistency {
  return consistentRead === true ? 'strong' : 'eventual';
}

function isConditionFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'ConditionalCheckFailedException';
}

function commandName(command: object): string {
  return command.constructor.name;
}

/**
 * Wraps `client` in a meter. Sizes of the items written through it are kept in memory (one
 * number per item) for as long as the meter lives.
 */
export function meterDynamoDb(client: DynamoDbSender, options: MeteredDynamoDbOptions): MeteredDynamoDb {
  const usage = newDynamoDbUsage();
  /** Item size by table and key, for every item the meter has seen written or read whole. */
  const sizes = new Map<string, number>();
  const keyOf = (table: string, item: Item): string => {
    const parts: unknown[] = [table];
    for (const name of options.keyAttributes) {
      const value = item[name];
      if (value === undefined) throw new FlambdaError(`DynamoDB meter: an item of table '${table}' has no key attribute '${name}'`, 'internal', 'fail');
      parts.push(value);
    }
    return JSON.stringify(parts);
  };
  const priced = (command: object, readUnits: number, writeUnits: number, conditionFailed = false): void => {
    usage.readUnits += readUnits;
    usage.writeUnits += writeUnits;
    options.onRequest?.({ command: commandName(command), readUnits, writeUnits, conditionFailed });
  };
  const refuse = (command: object, why: string): never => {
    throw new FlambdaError(`DynamoDB meter: cannot price ${commandName(command)}: ${why}`, 'internal', 'fail');
  };
  /** Sends a write; a failed condition is billed on the existing item (1 unit if none) and rethrown. */
  const write = async <T>(command: object, existing: number | undefined, send: () => Promise<T>): Promise<T> => {
    try {
      const output = await send();
      usage.writeRequests++;
      return output;
    } catch (error) {
      if (isConditionFailure(error)) {
        usage.writeRequests++;
        priced(command, 0, failedConditionWriteUnits(existing), true);
      }
      throw error;
    }
  };

  const send = async (command: object, ...rest: unknown[]): Promise<unknown> => {
    const inner = (c: object): Promise<unknown> => (client.send as (c: object, ...r: unknown[]) => Promise<unknown>)(c, ...rest);

    if (command instanceof GetItemCommand) {
      const input = command.input;
      const key = keyOf(input.TableName ?? '', input.Key ?? {});
      const output = (await inner(command)) as GetItemCommandOutput;
      usage.readRequests++;
      const whole = input.ProjectionExpression === undefined && input.AttributesToGet === undefined;
      let size: number | undefined;
      if (output.Item !== undefined) {
        size = sizes.get(key) ?? itemSize(output.Item as ItemLike);
        if (whole) sizes.set(key, itemSize(output.Item as ItemLike));
        usage.itemsRead++;
      } else if (whole) sizes.delete(key);
      priced(command, getItemReadUnits(size, consistency(input.ConsistentRead)), 0);
      return output;
    }

    if (command instanceof PutItemCommand) {
      const input = command.input;
      const item = input.Item ?? {};
      const key = keyOf(input.TableName ?? '', item);
      const old = sizes.get(key);
      const output = await write(command, old, () => inner(command));
      const size = itemSize(item as ItemLike);
      sizes.set(key, size);
      usage.itemsWritten++;
      priced(command, 0, putWriteUnits(size, old));
      return output;
    }

    if (command instanceof DeleteItemCommand) {
      const input = command.input;
      const key = keyOf(input.TableName ?? '', input.Key ?? {});
      const old = sizes.get(key);
      const output = await write(command, old, () => inner(command));
      sizes.delete(key);
      usage.itemsWritten++;
      priced(command, 0, deleteWriteUnits(old));
      return output;
    }

    if (command instanceof UpdateItemCommand) {
      const input = command.input;
      const table = input.TableName ?? '';
      const key = keyOf(table, input.Key ?? {});
      const before = sizes.get(key);
      const output = (await write(command, before, () => inner(command))) as UpdateItemCommandOutput;
      let after: Item | undefined = input.ReturnValues === 'ALL_NEW' ? output.Attributes : undefined;
      if (after === undefined) {
        const read = (await inner(new GetItemCommand({ TableName: table, Key: input.Key, ConsistentRead: true }))) as GetItemCommandOutput;
        after = read.Item ?? {};
      }
      const size = itemSize(after as ItemLike);
      sizes.set(key, size);
      usage.itemsWritten++;
      priced(command, 0, updateWriteUnits(before, size));
      return output;
    }

    if (command instanceof BatchWriteItemCommand) {
      const requests = command.input.RequestItems ?? {};
      const output = (await inner(command)) as BatchWriteItemCommandOutput;
      usage.writeRequests++;
      let units = 0;
      for (const [table, writes] of Object.entries(requests)) {
        const unprocessed = new Set((output.UnprocessedItems?.[table] ?? []).map((w) => writeKey(table, w)));
        for (const w of writes) {
          const key = writeKey(table, w);
          if (unprocessed.has(key)) continue;
          const old = sizes.get(key);
          if (w.PutRequest !== undefined) {
            const size = itemSize((w.PutRequest.Item ?? {}) as ItemLike);
            units += putWriteUnits(size, old);
            sizes.set(key, size);
          } else {
            units += deleteWriteUnits(old);
            sizes.delete(key);
          }
          usage.itemsWritten++;
        }
      }
      priced(command, 0, units);
      return output;
    }

    if (command instanceof BatchGetItemCommand) {
      const requests = command.input.RequestItems ?? {};
      const output = (await inner(command)) as BatchGetItemCommandOutput;
      usage.readRequests++;
      let units = 0;
      for (const [table, request] of Object.entries(requests)) {
        const found = new Map<string, Item>();
        for (const item of output.Responses?.[table] ?? []) found.set(keyOf(table, item), item);
        const unprocessed = new Set((output.UnprocessedKeys?.[table]?.Keys ?? []).map((k) => keyOf(table, k)));
        for (const k of request.Keys ?? []) {
          const key = keyOf(table, k);
          if (unprocessed.has(key)) continue;
          const item = found.get(key);
          if (item !== undefined) usage.itemsRead++;
          units += getItemReadUnits(item === undefined ? undefined : (sizes.get(key) ?? itemSize(item as ItemLike)), consistency(request.ConsistentRead));
        }
      }
      priced(command, units, 0);
      return output;
    }

    if (command instanceof QueryCommand || command instanceof ScanCommand) {
      const input = command.input;
      const legacyFilter = 'QueryFilter' in input ? input.QueryFilter : 'ScanFilter' in input ? input.ScanFilter : undefined;
      if (input.FilterExpression !== undefined || legacyFilter !== undefined) {
        refuse(command, 'a filter drops items it read, whose sizes the response does not carry');
      }
      if (input.Select === 'COUNT') refuse(command, "Select: 'COUNT' returns no items to size");
      const table = input.TableName ?? '';
      const output = (await inner(command)) as QueryCommandOutput;
      usage.readRequests++;
      const items = output.Items ?? [];
      usage.itemsRead += items.length;
      const whole = input.ProjectionExpression === undefined && input.AttributesToGet === undefined;
      const itemSizes = items.map((item) => {
        const key = keyOf(table, item);
        if (!whole) return sizes.get(key) ?? itemSize(item as ItemLike);
        const size = itemSize(item as ItemLike);
        sizes.set(key, size);
        return size;
      });
      priced(command, queryReadUnits(itemSizes, consistency(input.ConsistentRead)), 0);
      return output;
    }

    if (
      command instanceof TransactWriteItemsCommand ||
      command instanceof TransactGetItemsCommand ||
      command instanceof ExecuteStatementCommand ||
      command instanceof BatchExecuteStatementCommand ||
      command instanceof ExecuteTransactionCommand
    ) {
      refuse(command, 'transactions and PartiQL statements are not metered');
    }
    return inner(command);
  };

  function writeKey(table: string, w: WriteRequest): string {
    return keyOf(table, (w.PutRequest?.Item ?? w.DeleteRequest?.Key ?? {}) as Item);
  }

  return { send: send as unknown as DynamoDbSender['send'], usage };
}
