/**
 * The query list's address with filters (/project/doubtList?ptsId=…): what the subject list's and the visit cards'
 * counts link to, and what the list reads back. `ptsNo` and `visit` only label the filter; the ids filter.
 */
export interface QueryListTarget {
  status?: 1 | 2 | 3;
  ptsId?: number;
  ptsNo?: string;
  visitId?: number;
  /** with visitId: the occurrence of an unscheduled visit (0: the planned visit) */
  unscheduledId?: number;
  /** the visit's label, for the filter's tag */
  visit?: string;
}

export const QUERY_LIST_PATH = '/project/doubtList';

export function queryListPath(t: QueryListTarget): string {
  const q = new URLSearchParams();
  for (const k of ['status', 'ptsId', 'ptsNo', 'visitId', 'unscheduledId', 'visit'] as const) {
    const v = t[k];
    if (v !== undefined && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${QUERY_LIST_PATH}?${s}` : QUERY_LIST_PATH;
}

const id = (v: string | null, min = 1): number | undefined => {
  if (v === null || !/^\d{1,10}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= 2_147_483_647 ? n : undefined;
};

/** The filters an address names; anything malformed is left out (the list then shows more, never an error). */
export function readQueryListTarget(p: URLSearchParams): QueryListTarget {
  const status = id(p.get('status'));
  const ptsId = id(p.get('ptsId'));
  const visitId = ptsId === undefined ? undefined : id(p.get('visitId'));
  const unscheduledId = visitId === undefined ? undefined : id(p.get('unscheduledId'), 0);
  const text = (k: string) => p.get(k)?.trim().slice(0, 100) || undefined;
  return {
    ...(status === 1 || status === 2 || status === 3 ? { status } : {}),
    ...(ptsId !== undefined ? { ptsId, ptsNo: text('ptsNo') } : {}),
    ...(visitId !== undefined ? { visitId, unscheduledId: unscheduledId ?? 0, visit: text('visit') } : {}),
  };
}
