/**
 * Packs entries into API calls bounded by an entry count and a byte total (Kinesis PutRecords:
 * 500 records / 5 MiB; SQS SendMessageBatch: 10 messages / 256 KiB), keeping their order.
 * An entry larger than the byte bound still gets a call of its own; callers reject such
 * entries before packing.
 */
export function packCalls<T>(entries: readonly T[], maxEntries: number, maxBytes: number, sizeOf: (entry: T) => number): T[][] {
  const calls: T[][] = [];
  let call: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = sizeOf(entry);
    if (call.length > 0 && (call.length === maxEntries || bytes + size > maxBytes)) {
      calls.push(call);
      call = [];
      bytes = 0;
    }
    call.push(entry);
    bytes += size;
  }
  if (call.length > 0) calls.push(call);
  return calls;
}
