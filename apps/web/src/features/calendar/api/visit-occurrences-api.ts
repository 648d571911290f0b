import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { VisitOccurrencesRequest, VisitOccurrencesResult } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

/** POST /project/visits/occurrences: every visit of the caller's subjects whose window overlaps [from, to]. */
export const visitOccurrencesQuery = (s: Scope, q: VisitOccurrencesRequest) =>
  queryOptions({
    queryKey: ['visits', 'occurrences', s.env, s.projectId, q],
    queryFn: () => api.postJson<VisitOccurrencesResult>('/project/visits/occurrences', q as ApiData),
    enabled: s.projectId !== null,
    // moving to another month keeps the last month on screen until the new one arrives
    placeholderData: keepPreviousData,
  });
