import type { DeidKind, DeidSpan } from './types.js';

/** Builds a span over [start, end) of the input. */
export function span(input: string, start: number, end: number, kind: DeidKind, reason: string): DeidSpan {
  return { start, end, text: input.slice(start, end), kind, reason };
}

/** Drops spans that repeat an earlier one's [start, end). */
export function uniqueSpans(spans: readonly DeidSpan[]): DeidSpan[] {
  const seen = new Set<string>();
  return spans.filter((s) => {
    const key = `${s.start}:${s.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// When spans of different kinds merge, the merged span is named after the most specific one.
const PRIORITY: readonly DeidKind[] = [
  'subjectIdentifier',
  'idCard',
  'medicalRecordNo',
  'inpatientNo',
  'outpatientNo',
  'phone',
  'landline',
  'email',
  'birthDate',
  'keyword',
  'doctor',
  'personName',
  'address',
  'hospital',
  'date',
];

/** Sorts spans and merges overlapping or touching ones, so the result is ordered and disjoint. */
export function mergeSpans(input: string, spans: readonly DeidSpan[]): DeidSpan[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: DeidSpan[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) {
      const end = Math.max(last.end, s.end);
      const keep = PRIORITY.indexOf(s.kind) < PRIORITY.indexOf(last.kind) ? s : last;
      out[out.length - 1] = span(input, last.start, end, keep.kind, keep.reason);
    } else {
      out.push(s);
    }
  }
  return out;
}

/** Replaces every character inside the spans with maskChar; the result has the input's length. */
export function applyMask(text: string, spans: readonly Pick<DeidSpan, 'start' | 'end'>[], maskChar = '*'): string {
  const chars = text.split('');
  for (const s of spans) {
    for (let i = Math.max(0, s.start); i < Math.min(chars.length, s.end); i++) chars[i] = maskChar;
  }
  return chars.join('');
}
