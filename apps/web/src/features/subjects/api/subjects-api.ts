import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  ScheduleVisit,
  SiteDetailRow,
  SubjectImportResponse,
  SubjectListRow,
  SubjectRow,
  VisitQueryTally,
  VisitRow,
} from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface SubjectFilters {
  keyword?: string;
  status?: number;
  siteId?: number;
  /** subjects whose current visit is this planned visit */
  visitId?: number;
  identifier?: string;
  startDate?: string;
  endDate?: string;
  sortField?: 'ptsNo' | 'status' | 'firstVisitDate' | 'createTime' | 'siteName';
  sortOrder?: 'asc' | 'desc';
}

export interface SubjectInput {
  ptsNo?: string;
  status?: number;
  siteId: number;
  firstVisitDate: string;
  initials?: string;
  medicalRecordId?: string;
  inpatientId?: string;
  outpatientId?: string;
  idCard?: string;
}

type Scope = { env: string; projectId: number | null };

export const subjectPageQuery = (
  s: Scope,
  f: SubjectFilters,
  pageNumber: number,
  pageSize: number,
  centre: boolean,
) =>
  queryOptions({
    queryKey: ['subjects', 'page', s.env, s.projectId, f, pageNumber, pageSize, centre],
    queryFn: () =>
      api.post<Page<SubjectListRow>>(centre ? '/project/manage/centerPtsPageQuery' : '/project/manage/ptsList', {
        ...(f as ApiData),
        pageNumber,
        pageSize,
      }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const recyclePageQuery = (s: Scope, keyword: string, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['subjects', 'recycle', s.env, s.projectId, keyword, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<SubjectRow>>('/project/failedPts/list', {
        keyword: keyword || undefined,
        pageNumber,
        pageSize,
      }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const subjectQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: ['subjects', 'one', s.env, s.projectId, ptsId],
    queryFn: () =>
      api.get<SubjectRow>('/project/manage/getPtsByProIdAndPtsId', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
  });

export const scheduleQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: ['subjects', 'visits', s.env, s.projectId, ptsId],
    queryFn: () => api.get<ScheduleVisit[]>('/project/pts/visits', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
  });

/**
 * GET /project/pts/visitQueries: the open and replied queries of each visit of a subject (the visit cards). Under
 * ['queries'] too, so that a raise, answer or close anywhere refreshes it.
 */
export const visitQueriesQuery = (s: Scope, ptsId: number | null, enabled: boolean) =>
  queryOptions({
    queryKey: ['queries', 'visitTallies', s.env, s.projectId, ptsId],
    queryFn: () => api.get<VisitQueryTally[]>('/project/pts/visitQueries', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: enabled && s.projectId !== null && ptsId !== null,
  });

/** POST /pro/site/list: the caller's sites (the server lists only those). */
export const mySitesQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['sites', s.env, s.projectId],
    queryFn: () => api.post<SiteDetailRow[]>('/pro/site/list'),
    enabled: s.projectId !== null,
  });

/** The planned (not unscheduled) visits of the design version in force, for the list's visit filter. */
export const plannedVisitsQuery = (s: Scope, enabled: boolean) =>
  queryOptions({
    queryKey: ['design', 'enabledVisits', s.env, s.projectId],
    queryFn: () =>
      api.post<{ visits: VisitRow[] }>('/pro/visit/listByEnabledVersion', undefined, { silent: true }),
    select: (d: { visits: VisitRow[] }) => d.visits.filter((v) => !v.unscheduled),
    enabled: enabled && s.projectId !== null,
    staleTime: 60_000,
  });

/** The browser's time zone: the export shows creation times in the viewer's zone (DESIGN §10). */
const viewerTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai';

export { saveBlob } from '../../../lib/download';

export const subjectsApi = {
  add: (b: SubjectInput) => api.post<SubjectRow>('/project/managePts/add', { ...b }, { silent: true }),
  update: (b: SubjectInput & { ptsId: number; version: number }) =>
    api.post<SubjectRow>('/project/managePts/update', { ...b }, { silent: true }),
  setStatus: (b: { ptsId: number; version: number; status: number; reason?: string }) =>
    api.post<SubjectRow>('/project/managePts/updateStatus', { ...b }, { silent: true }),
  remove: (ptsId: number, reason: string) =>
    api.post<unknown>('/project/managePts/delete', { ptsId, reason }, { silent: true }),
  restore: (ptsId: number, reason: string) =>
    api.post<unknown>('/project/failedPts/restore', { ptsId, reason }, { silent: true }),
  addUnscheduled: (b: { ptsId: number; visitId: number; visitDate: string; label?: string }) =>
    api.post<unknown>('/crf/prefill/visit/addOrUpdateUnscheduled', { ...b }, { silent: true }),
  importTemplate: () => api.get<Blob>('/project/managePts/importTemplate', undefined, { raw: true }),
  /** silent: the import dialog lists every bad row itself */
  importPts: (file: File) => {
    const fd = new FormData();
    fd.append('file', file);
    return api.post<SubjectImportResponse>('/project/managePts/importPts', undefined, {
      multipart: fd,
      silent: true,
    });
  },
  /** the list's filters and sort, as the list sends them */
  exportXlsx: (f: SubjectFilters) =>
    api.get<Blob>(
      '/project/manage/ptsExport',
      { ...(f as ApiData), timeZone: viewerTimeZone() },
      { raw: true },
    ),
};
