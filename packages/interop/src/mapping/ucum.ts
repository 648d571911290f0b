/**
 * UCUM unit conversion through @lhncbc/ucum-lhc (DESIGN §6). Only conversions within one dimension are made:
 * mass ↔ amount of substance (mg/dL → mmol/L) needs a molar mass the rule does not have, so it is refused rather
 * than guessed.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the package ships no types; this file declares the part used
/// <reference path="./ucum-lhc.d.ts" />
import ucum, { type UcumLhcUtilsInstance } from '@lhncbc/ucum-lhc';

let utils: UcumLhcUtilsInstance | null = null;
function lib(): UcumLhcUtilsInstance {
  utils ??= ucum.UcumLhcUtils.getInstance();
  return utils;
}

const validCache = new Map<string, boolean>();
/** Whether a unit string is valid UCUM (cached: the library parses on every call). */
export function isUcumUnit(unit: string): boolean {
  const u = unit.trim();
  if (u === '') return false;
  let ok = validCache.get(u);
  if (ok === undefined) {
    ok = lib().validateUnitString(u, false, 'validate').status === 'valid';
    if (validCache.size < 10_000) validCache.set(u, ok);
  }
  return ok;
}

export type UnitConversion = { ok: true; value: number } | { ok: false; reason: string };

const convCache = new Map<string, { factor: number; offset: number } | string>();

/**
 * Converts `value` from `from` to `to` (UCUM codes). Linear conversions are cached as factor + offset (probed at 0
 * and 1), so a selection over many records parses each unit pair once.
 */
export function convertUnit(value: number, from: string, to: string): UnitConversion {
  const f = from.trim();
  const t = to.trim();
  if (f === t) return { ok: true, value };
  const key = `${f}\u0000${t}`;
  let c = convCache.get(key);
  if (c === undefined) {
    const r0 = lib().convertUnitTo(f, 0, t);
    const r1 = lib().convertUnitTo(f, 1, t);
    if (r0.status === 'succeeded' && r1.status === 'succeeded' && r0.toVal !== null && r1.toVal !== null) c = { offset: r0.toVal, factor: r1.toVal - r0.toVal };
    else c = (r1.msg.length ? r1.msg : r0.msg).join(' ') || `${f} cannot be converted to ${t}`;
    if (convCache.size < 10_000) convCache.set(key, c);
  }
  if (typeof c === 'string') return { ok: false, reason: c };
  const out = value * c.factor + c.offset;
  return Number.isFinite(out) ? { ok: true, value: out } : { ok: false, reason: 'not a finite number' };
}
