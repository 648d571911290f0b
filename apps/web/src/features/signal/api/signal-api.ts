import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { SignalPeriod, SignalReport, SignalTermGroup, SignalTermPage, SIGNAL_TERM_SORT } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

/** The report's filters (shared signalRequest); absent = not filtered. */
export interface SignalFilters {
  siteId?: number;
  onsetFrom?: string;
  onsetTo?: string;
  period: SignalPeriod;
  minGrade?: number;
  seriousOnly?: boolean;
  relatedOnly?: boolean;
  termBy: SignalTermGroup;
}
export type TermSortField = (typeof SIGNAL_TERM_SORT)[number];
export interface TermSort {
  sortField: TermSortField;
  sortOrder: 'asc' | 'desc';
}

export const DEFAULT_SIGNAL_FILTERS: SignalFilters = { period: 'month', termBy: 'coded' };

/** Whether filters narrow the AEs counted (period and term grouping only change how they are shown). */
export function narrowed(f: SignalFilters): boolean {
  return f.siteId !== undefined || !!f.onsetFrom || !!f.onsetTo || f.minGrade !== undefined || !!f.seriousOnly || !!f.relatedOnly;
}

/** Every key of this feature starts here. */
export const signalKey = ['signal'] as const;

/** The calls of the signal report (server: apps/server/src/modules/signal; contracts: shared signal.schema). */
export const signalApi = {
  report: (f: SignalFilters) => api.postJson<SignalReport>('/report/signal', { ...(f as unknown as ApiData) }, { silent: true }),
  terms: (f: SignalFilters, sort: TermSort, pageNumber: number, pageSize: number) =>
    api.postJson<SignalTermPage>('/report/signal/terms', { ...(f as unknown as ApiData), ...sort, pageNumber, pageSize }, { silent: true }),
  exportFile: (f: SignalFilters) => api.get<Blob>('/report/signal/export', { ...(f as unknown as ApiData) }, { raw: true }),
};

export const signalReportQuery = (s: Scope, f: SignalFilters) =>
  queryOptions({
    queryKey: [...signalKey, 'report', s.env, s.projectId, f],
    queryFn: () => signalApi.report(f),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const signalTermsQuery = (s: Scope, f: SignalFilters, sort: TermSort, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...signalKey, 'terms', s.env, s.projectId, f, sort, pageNumber, pageSize],
    queryFn: () => signalApi.terms(f, sort, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });
