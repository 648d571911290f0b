import { useQuery } from '@tanstack/react-query';
import type { VisitOccurrencesRequest } from '@esource/shared';
import { useSession } from '../session';
import { visitOccurrencesQuery } from './api/visit-occurrences-api';
import type { VisitOccurrence } from './calendar-logic';

const EMPTY: VisitOccurrence[] = [];

/**
 * Every visit of the caller's subjects (optionally of one site, in some states) whose window overlaps
 * [from, to]: one request, computed by the server for all subjects in scope. `truncated` says the server
 * stopped at `limit` occurrences.
 */
export function useAllVisits(q: VisitOccurrencesRequest) {
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const r = useQuery(visitOccurrencesQuery({ env, projectId }, q));
  return {
    visits: r.data?.items ?? EMPTY,
    truncated: r.data?.truncated ?? false,
    limit: r.data?.limit ?? 0,
    loading: r.isLoading || r.isPlaceholderData,
    error: r.error?.message ?? null,
  };
}
