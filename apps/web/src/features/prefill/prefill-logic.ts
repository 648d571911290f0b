import {
  ENTRY_MODE,
  parseSourceRef,
  type FormOption,
  type PrefillCandidate,
  type PrefillDecisionInput,
} from '@esource/shared';
import { isEmptyValue, labelFor } from '../crf-renderer';

/**
 * The pre-fill review's pure rules (spec §4 new data / merge / ignore): which choices a candidate offers, what
 * "accept all new" decides, which decisions are still incomplete (a merge over a different value needs a
 * reason) and what confirm sends. Nothing is decided for the user: a candidate without a choice is left alone.
 */
export type Choice = 'new' | 'merge' | 'ignore';
export interface Decision {
  choice: Choice;
  reason?: string;
}
export type Decisions = Record<string, Decision>;

/** The choices a candidate offers: new data into an empty item, merge over a different value, ignore. */
export function choicesFor(c: Pick<PrefillCandidate, 'state'>): Choice[] {
  switch (c.state) {
    case 'new':
      return ['new', 'ignore'];
    case 'conflict':
      return ['merge', 'ignore'];
    case 'problem':
      // a value that cannot go into its field is never filled; it may be set aside so that it is not offered again
      return ['ignore'];
    case 'same':
      return [];
  }
}

/** "Accept all new": every new candidate without a decision becomes 'new'; other decisions stay as they are. */
export function acceptAllNew(candidates: readonly PrefillCandidate[], decisions: Decisions): Decisions {
  const out: Decisions = { ...decisions };
  for (const c of candidates) if (c.state === 'new' && !out[c.variable]) out[c.variable] = { choice: 'new' };
  return out;
}

/** Variables whose decision cannot be sent yet: a merge without a reason. */
export function missingReasons(decisions: Decisions): string[] {
  return Object.entries(decisions)
    .filter(([, d]) => d.choice === 'merge' && !d.reason?.trim())
    .map(([v]) => v)
    .sort();
}

/** What confirm sends: one decision per decided candidate, with the source record version it saw. */
export function decisionInputs(candidates: readonly PrefillCandidate[], decisions: Decisions): PrefillDecisionInput[] {
  const out: PrefillDecisionInput[] = [];
  for (const c of candidates) {
    const d = decisions[c.variable];
    if (!d || !choicesFor(c).includes(d.choice)) continue;
    const reason = d.reason?.trim();
    out.push({
      variable: c.variable,
      sourceRecordId: c.source.id,
      sourceVersion: c.source.version,
      decision: d.choice,
      ...(d.choice === 'merge' && reason ? { reason } : {}),
    });
  }
  return out;
}

/** Counts per state, for the panel's summary line. */
export function stateCounts(candidates: readonly PrefillCandidate[]): Record<PrefillCandidate['state'], number> {
  const n = { new: 0, same: 0, conflict: 0, problem: 0 };
  for (const c of candidates) n[c.state] += 1;
  return n;
}

/** A value as the user reads it: an option's label in the user's language, a list joined, '—' for nothing. */
export function displayValue(v: unknown, options: readonly FormOption[] = [], language = 'zh_CN'): string {
  if (isEmptyValue(v)) return '—';
  const label = (x: unknown): string => {
    const o = options.find((op) => op.value === x);
    return o ? labelFor(o, language) : String(x);
  };
  if (Array.isArray(v)) return v.map(label).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return label(v);
}

/** Whether a stored value came from a source record (gather 5, inject 6) and which one. */
export function sourceOf(stored: { entryMode: number; sourceRef?: string | null } | undefined): {
  recordId: number;
  version: number;
  mode: number;
} | null {
  if (!stored) return null;
  // KBMS 4: a value read from a source document (OCR association), kept as a source record too
  if (stored.entryMode !== ENTRY_MODE.gather && stored.entryMode !== ENTRY_MODE.inject && stored.entryMode !== ENTRY_MODE.kbms) return null;
  const ref = parseSourceRef(stored.sourceRef);
  return ref ? { ...ref, mode: stored.entryMode } : null;
}

/** A measured number as people read it: at most 6 significant digits (13.760201103478497 → 13.7602). */
export function readableNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return String(Number.isInteger(v) ? v : Number(v.toPrecision(6)));
}
