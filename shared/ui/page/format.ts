/** Number and time formatting for the job page. */

/** 1234 → `1,234`; 1234567 → `1.23M`. */
export function count(n: number): string {
  if (n >= 1e7) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  return Math.round(n).toLocaleString('en-US');
}

/** Rows per second, `1.2k/s`. */
export function rate(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M/s`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k/s`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k/s`;
  return `${Math.round(n)}/s`;
}

/** Bytes, `12.3 KB`. */
export function bytes(n: number | null): string {
  if (n === null) return '—';
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} B`;
}

/** Milliseconds as `3.2 s`, `1 min 4 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Time of day of an epoch-ms processing time, local. */
export function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString('en-GB');
}

/** An event time (epoch ms, UTC) as Flink prints TIMESTAMP(3). */
export function eventTime(ms: number): string {
  if (ms === Infinity) return '+∞';
  if (ms === -Infinity || Number.isNaN(ms)) return '−∞';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** US dollars with enough digits for small amounts. */
export function usd(n: number): string {
  return n >= 1 ? `$${n.toFixed(2)}` : `$${n.toPrecision(3)}`;
}

/** Escapes text for innerHTML. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
