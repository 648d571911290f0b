/** Trims every string in a parsed body or query (spec §7: string values are trimmed). */
export function deepTrim(v: unknown): unknown {
  if (typeof v === 'string') return v.trim();
  if (Array.isArray(v)) return v.map(deepTrim);
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v)) out[k] = deepTrim(val);
    return out;
  }
  return v;
}
