import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { QueryDetail, QueryPage, queryCounts, queryFieldMarks } from '@esource/shared';
import type { z } from 'zod';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };
export type QueryCounts = z.infer<typeof queryCounts>;
export type FieldMarks = z.infer<typeof queryFieldMarks>;

export interface QueryFilters {
  status?: number;
  siteId?: number;
  ptsNo?: string;
  /** one subject, and one of its visit occurrences (the counts' links: query-links.ts) */
  ptsId?: number;
  visitId?: number;
  unscheduledId?: number;
  origin?: 'manual' | 'auto';
  keyword?: string;
}

/** Every key of this feature starts here: one invalidation refreshes its lists, counts, markers and details. */
export const queriesKey = ['queries'] as const;

export interface RaiseInput {
  ptsId: number;
  visitId?: number;
  unscheduledId?: number;
  formId?: number;
  repeatNo?: number;
  variable?: string;
  text: string;
}

/** The calls of queries (server: apps/server/src/modules/queries; contracts: shared queries.schema). */
export const queriesApi = {
  list: (f: QueryFilters, pageNumber: number, pageSize: number) => api.postJson<QueryPage>('/crf/query/list', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
  counts: () => api.post<QueryCounts>('/crf/query/count', undefined, { silent: true }),
  detail: (id: number) => api.get<QueryDetail>('/crf/query/detail', { id }, { silent: true }),
  marks: (instanceId: number) => api.postJson<FieldMarks>('/crf/query/field/list', { instanceId }, { silent: true }),
  add: (input: RaiseInput) => api.postJson<QueryDetail>('/crf/query/add', { ...input }, { silent: true }),
  update: (body: { id: number; version: number; action: 'reply' | 'close' | 'reopen'; text?: string; value?: unknown; reason?: string }) =>
    api.postJson<QueryDetail>('/crf/query/update', body, { silent: true }),
  exportFile: (f: QueryFilters) => api.get<Blob>('/crf/query/export', { ...(f as ApiData) }, { raw: true }),
};

export const queryPageQuery = (s: Scope, f: QueryFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...queriesKey, 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => queriesApi.list(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const queryCountsQuery = (s: Scope) =>
  queryOptions({ queryKey: [...queriesKey, 'counts', s.env, s.projectId], queryFn: queriesApi.counts, enabled: s.projectId !== null, refetchInterval: 30_000 });

export const queryDetailQuery = (id: number | null) =>
  queryOptions({ queryKey: [...queriesKey, 'detail', id], queryFn: () => queriesApi.detail(id!), enabled: id !== null });

export const fieldMarksQuery = (instanceId: number | null) =>
  queryOptions({ queryKey: [...queriesKey, 'marks', instanceId], queryFn: () => queriesApi.marks(instanceId!), enabled: instanceId !== null });

export function afterQueryChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: queriesKey });
}
