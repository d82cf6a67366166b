/**
 * A Kinesis client decorator that counts what Kinesis Data Streams bills for the records sent
 * and read through it (stream-units.ts): PUT payload units and on-demand data-in bytes of every
 * record a PutRecord or PutRecords call accepted (a record the call reports failed is not
 * billed), and the bytes GetRecords returned. Shard-hours are not a property of requests: the
 * cost model prices them from the shard counts.
 */
import { Buffer } from 'node:buffer';
import { GetRecordsCommand, PutRecordCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { GetRecordsCommandOutput, KinesisClient, PutRecordsCommandOutput } from '@aws-sdk/client-kinesis';
import { newKinesisUsage, onDemandIngestBytes, putPayloadUnits } from './stream-units.ts';
import type { KinesisUsage } from './stream-units.ts';

/** A Kinesis client that counts billed units; use it as the client. */
export interface MeteredKinesis {
  readonly client: KinesisClient;
  readonly usage: Readonly<KinesisUsage>;
  /** Records and bytes accepted per stream name (to size each stream's shards). */
  readonly byStream: ReadonlyMap<string, { records: number; bytes: number }>;
}

function recordBytes(data: Uint8Array | undefined, partitionKey: string | undefined): number {
  return (data?.byteLength ?? 0) + Buffer.byteLength(partitionKey ?? '', 'utf8');
}

/** Wraps `client`: every call goes through, billed units are added to `usage`. */
export function meterKinesis(client: KinesisClient, usage: KinesisUsage = newKinesisUsage()): MeteredKinesis {
  const byStream = new Map<string, { records: number; bytes: number }>();
  const add = (stream: string, bytes: number): void => {
    let of = byStream.get(stream);
    if (of === undefined) byStream.set(stream, (of = { records: 0, bytes: 0 }));
    of.records++;
    of.bytes += bytes;
    usage.recordsPut++;
    usage.putPayloadUnits += putPayloadUnits(bytes);
    usage.onDemandBytesIn += onDemandIngestBytes(bytes);
  };
  const send = async (command: object, ...rest: unknown[]): Promise<unknown> => {
    const output = await (client.send as (c: object, ...r: unknown[]) => Promise<unknown>).call(client, command, ...rest);
    if (command instanceof PutRecordsCommand) {
      usage.putRequests++;
      const results = (output as PutRecordsCommandOutput).Records ?? [];
      (command.input.Records ?? []).forEach((record, i) => {
        if (results[i]?.ErrorCode === undefined) add(command.input.StreamName ?? '', recordBytes(record.Data, record.PartitionKey));
      });
    } else if (command instanceof PutRecordCommand) {
      usage.putRequests++;
      add(command.input.StreamName ?? '', recordBytes(command.input.Data, command.input.PartitionKey));
    } else if (command instanceof GetRecordsCommand) {
      usage.getRequests++;
      for (const record of (output as GetRecordsCommandOutput).Records ?? []) usage.bytesOut += recordBytes(record.Data, record.PartitionKey);
    }
    return output;
  };
  const metered = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'send') return send;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { client: metered, usage, byStream };
}
