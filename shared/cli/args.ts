/**
 * Parsing of repeated `name=value` CLI arguments (`--input bid=bid.jsonl`).
 */
import { PlanError } from '../core/errors.ts';

/** Parses `name=value` bindings; a bare value is allowed only when `allowBare` names its key. */
export function parseBindings(option: string, values: readonly string[], allowBare?: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    let name: string;
    let value: string;
    if (eq <= 0) {
      if (allowBare === undefined) {
        throw new PlanError(`${option} expects <name>=<value>, e.g. ${option} bid=bid.jsonl (given '${v}')`);
      }
      name = allowBare;
      value = v;
    } else {
      name = v.slice(0, eq);
      value = v.slice(eq + 1);
    }
    if (value === '') throw new PlanError(`${option} ${name}= needs a value`);
    if (out.has(name)) throw new PlanError(`${option} binds '${name}' twice`);
    out.set(name, value);
  }
  return out;
}

/** Parses a positive integer option value. */
export function parsePositiveInt(option: string, value: string, max = 1_000_000_000): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new PlanError(`${option} must be an integer 1..${max} (given '${value}')`);
  }
  return n;
}
