/**
 * Pure logic of the desensitization configuration screen: the try-out's text cut into plain and hidden pieces, the
 * count of each kind of hidden span, and whether the policy being edited differs from the one saved.
 */
import {
  DEID_POLICY_KEYS,
  DEID_SPAN_KINDS,
  type DeidPolicyFlags,
  type DeidSpanKind,
  type DeidTestSpan,
} from '@esource/shared';

export interface TextPiece {
  text: string;
  /** the span that hides this piece; absent for text that stays visible */
  span?: DeidTestSpan;
}

/**
 * The text as consecutive pieces, each either visible or hidden by one span, in order; joined they give the text back.
 * Spans come sorted and disjoint from the server; anything else (overlap, outside the text, empty) is clipped away
 * rather than shown twice.
 */
export function highlightPieces(text: string, spans: readonly DeidTestSpan[]): TextPiece[] {
  const out: TextPiece[] = [];
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const start = Math.max(s.start, at);
    const end = Math.min(s.end, text.length);
    if (end <= start) continue;
    if (start > at) out.push({ text: text.slice(at, start) });
    out.push({ text: text.slice(start, end), span: s });
    at = end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}

/** How many spans of each kind, in the display order of DEID_SPAN_KINDS; kinds without spans are left out. */
export function kindCounts(
  spans: readonly Pick<DeidTestSpan, 'kind'>[],
): { kind: DeidSpanKind; count: number }[] {
  const n = new Map<DeidSpanKind, number>();
  for (const s of spans) n.set(s.kind, (n.get(s.kind) ?? 0) + 1);
  return DEID_SPAN_KINDS.filter((k) => n.has(k)).map((kind) => ({ kind, count: n.get(kind)! }));
}

/** True when any switch of the draft differs from the saved policy. */
export function policyChanged(saved: DeidPolicyFlags, draft: DeidPolicyFlags): boolean {
  return DEID_POLICY_KEYS.some((k) => saved[k] !== draft[k]);
}

/** The four switches of a policy view (which also carries its version and who saved it). */
export function flagsOf(v: DeidPolicyFlags): DeidPolicyFlags {
  return Object.fromEntries(DEID_POLICY_KEYS.map((k) => [k, v[k]])) as DeidPolicyFlags;
}
