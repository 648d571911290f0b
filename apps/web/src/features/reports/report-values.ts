/** How the reports show item and source values (pure: unit-tested). */

/** An item value as text: a multiple choice joined, nothing as a dash. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v))
    return v
      .map((x) => (typeof x === 'string' || typeof x === 'number' ? String(x) : JSON.stringify(x)))
      .join(', ');
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * A source value as the hospital stored it, readable: a number rounds to 4 decimals ("71.16928187291595" → "71.1693",
 * as the source-data screens show it; the exact value stays in the tooltip and the export); other text stays.
 */
export function sourceText(v: string | null): string {
  if (v === null || v.trim() === '') return '—';
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v.trim())) return v;
  return String(Math.round(Number(v) * 1e4) / 1e4);
}

/** A value with its unit ('—' stays bare). */
export function withUnit(v: string, unit: string | null | undefined): string {
  return v !== '—' && unit ? `${v} ${unit}` : v;
}

/** A name cut to `max` characters with an ellipsis (chart axis labels keep room for what follows the name). */
export function shortName(name: string, max = 24): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}
