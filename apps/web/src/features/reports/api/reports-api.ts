import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  CONSISTENCY_SORT,
  CRF_MISSING_SORT,
  ConsistencyPage,
  ConsistencyReason,
  CrfMissingPage,
  CrfReport,
  CrfReportGroup,
  ReportOptions,
} from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

/** The filters every report shares (shared reports.schema); absent = not filtered. */
export interface BaseFilters {
  siteId?: number;
  versionId?: number;
  visitCode?: string;
  formCode?: string;
  subjectStatus?: number;
}
export interface MissingFilters extends BaseFilters {
  ptsNo?: string;
  variable?: string;
  formStatus?: number;
}
export interface ConsistencyFilters extends Omit<BaseFilters, 'subjectStatus'> {
  ptsNo?: string;
  reason?: ConsistencyReason;
}
export interface Sort<F extends string> {
  sortField: F;
  sortOrder: 'asc' | 'desc';
}
export type MissingSortField = (typeof CRF_MISSING_SORT)[number];
export type ConsistencySortField = (typeof CONSISTENCY_SORT)[number];

/** Every key of this feature starts here. */
export const reportsKey = ['reports'] as const;
/** An export may take a while on a large study: longer than a list's timeout. */
const EXPORT_TIMEOUT_MS = 10 * 60_000;

const body = (x: object): ApiData => ({ ...(x as ApiData) });

/** The calls of the study reports (server: apps/server/src/modules/reports; contracts: shared reports.schema). */
export const reportsApi = {
  options: (versionId?: number) =>
    api.postJson<ReportOptions>('/visual/report/pts/options', versionId ? { versionId } : {}, {
      silent: true,
    }),
  crf: (f: BaseFilters, groupBy: CrfReportGroup) =>
    api.postJson<CrfReport>('/visual/report/crfReport', body({ ...f, groupBy }), { silent: true }),
  crfExport: (f: BaseFilters) =>
    api.postJson<Blob>('/visual/report/crfReport/export', body(f), {
      raw: true,
      timeoutMs: EXPORT_TIMEOUT_MS,
    }),
  missing: (f: MissingFilters, sort: Sort<MissingSortField>, pageNumber: number, pageSize: number) =>
    api.postJson<CrfMissingPage>(
      '/visual/report/crfReportMissing',
      body({ ...f, ...sort, pageNumber, pageSize }),
      { silent: true },
    ),
  missingExport: (f: MissingFilters) =>
    api.postJson<Blob>('/visual/report/crfReportMissing/export', body(f), {
      raw: true,
      timeoutMs: EXPORT_TIMEOUT_MS,
    }),
  consistency: (
    f: ConsistencyFilters,
    sort: Sort<ConsistencySortField>,
    pageNumber: number,
    pageSize: number,
  ) =>
    api.postJson<ConsistencyPage>(
      '/dataConsistencyReport/list',
      body({ ...f, ...sort, pageNumber, pageSize }),
      { silent: true },
    ),
  consistencyExport: (f: ConsistencyFilters) =>
    api.postJson<Blob>('/dataConsistencyReport/export', body(f), { raw: true, timeoutMs: EXPORT_TIMEOUT_MS }),
};

export const reportOptionsQuery = (s: Scope, versionId?: number) =>
  queryOptions({
    queryKey: [...reportsKey, 'options', s.env, s.projectId, versionId ?? null],
    queryFn: () => reportsApi.options(versionId),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    enabled: s.projectId !== null,
  });

export const crfReportQuery = (s: Scope, f: BaseFilters, groupBy: CrfReportGroup) =>
  queryOptions({
    queryKey: [...reportsKey, 'crf', s.env, s.projectId, f, groupBy],
    queryFn: () => reportsApi.crf(f, groupBy),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const missingQuery = (
  s: Scope,
  f: MissingFilters,
  sort: Sort<MissingSortField>,
  pageNumber: number,
  pageSize: number,
) =>
  queryOptions({
    queryKey: [...reportsKey, 'missing', s.env, s.projectId, f, sort, pageNumber, pageSize],
    queryFn: () => reportsApi.missing(f, sort, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const consistencyQuery = (
  s: Scope,
  f: ConsistencyFilters,
  sort: Sort<ConsistencySortField>,
  pageNumber: number,
  pageSize: number,
) =>
  queryOptions({
    queryKey: [...reportsKey, 'consistency', s.env, s.projectId, f, sort, pageNumber, pageSize],
    queryFn: () => reportsApi.consistency(f, sort, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });
