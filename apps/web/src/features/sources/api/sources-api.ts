import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  ChangeRow,
  ConnectionSave,
  ConnectionTestResult,
  ConnectionView,
  DocTypeCount,
  GatherDataDetail,
  GatherPtsDataDetail,
  MatchQueueRow,
  ProcessBarResult,
  SourceRecordDetail,
  SourceRecordRow,
  TaskView,
} from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

/** A server-paged list (the shared pageResult shape). */
export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

type Scope = { env: string; projectId: number | null };

export interface RecordFilters {
  docType?: number;
  dateFrom?: string;
  dateTo?: string;
  text?: string;
}

export interface ReportFilters {
  siteId?: number;
  ptsNo?: string;
  docType?: number;
  status?: number;
  trigger?: string;
  dateFrom?: string;
  dateTo?: string;
}

export interface ConnectionTestInput {
  id: number;
  identifierValue?: string;
  identifierSystem?: string;
  ptsId?: number;
}

/** Every key of this feature starts here, so that one invalidation refreshes all its lists after a change. */
export const sourcesKey = ['sources'] as const;

/** The calls of the source-data screens (server: apps/server/src/modules/sources, contracts: shared sources.schema). */
export const sourcesApi = {
  connections: (siteId?: number) =>
    api.post<ConnectionView[]>('/project/source/connection/list', siteId ? { siteId } : {}),
  connection: (id: number) => api.get<ConnectionView>('/project/source/connection/detail', { id }),
  saveConnection: (b: ConnectionSave) =>
    api.postJson<ConnectionView>(
      b.id ? '/project/source/connection/update' : '/project/source/connection/add',
      b,
      { silent: true },
    ),
  deleteConnection: (id: number, version: number) =>
    api.post<unknown>('/project/source/connection/delete', { id, version }),
  enableConnection: (id: number, version: number, enabled: boolean) =>
    api.post<ConnectionView>('/project/source/connection/enable', { id, version, enabled }),
  /** silent: the drawer shows the failure (the server's OperationOutcome text) itself */
  testConnection: (b: ConnectionTestInput) =>
    api.postJson<ConnectionTestResult>('/project/source/connection/test', { ...b }, { silent: true, timeoutMs: 330_000 }),
  uploadFile: (id: number, file: File) => {
    const fd = new FormData();
    fd.append('id', String(id));
    fd.append('file', file);
    return api.post<{ taskId: number }>('/project/source/connection/upload', undefined, { multipart: fd, silent: true });
  },
  addPtsTask: (b: { ptsId: number; connectionId?: number; dateFrom?: string; dateTo?: string }) =>
    api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { ...b }, { silent: true }),
  updatePtsTask: (taskId: number, action: 'cancel' | 'retry') =>
    api.post<unknown>('/project/managePts/update/ptsTask', { taskId, action }, { silent: true }),
  assign: (id: number, ptsId: number) =>
    api.post<unknown>('/project/source/match/assign', { id, ptsId }, { silent: true }),
  dismiss: (id: number) => api.post<unknown>('/project/source/match/dismiss', { id }, { silent: true }),
  /** the data change report as an Excel file, through the API client (auth headers) */
  exportDataChange: (f: ReportFilters) =>
    api.get<Blob>('/dataChangeReport/export', { ...(f as ApiData) }, { raw: true }),
};

export const connectionsQuery = (s: Scope, siteId?: number) =>
  queryOptions({
    queryKey: [...sourcesKey, 'connections', s.env, s.projectId, siteId ?? null],
    queryFn: () => sourcesApi.connections(siteId),
    enabled: s.projectId !== null,
  });

export const typeListQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: [...sourcesKey, 'types', s.env, s.projectId, ptsId],
    queryFn: () => api.post<DocTypeCount[]>('/project/managePts/queryTypeList', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
  });

/** The subject's latest extraction; polled every 2 s while it runs. */
export const processBarQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: [...sourcesKey, 'processBar', s.env, s.projectId, ptsId],
    queryFn: () =>
      api.post<ProcessBarResult>('/project/manage/queryProcessBar', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
    // queued (0) or running (1): poll until it ends
    refetchInterval: (q) => {
      const d = q.state.data;
      return d && (d.running || (d.task !== null && d.task.status <= 1)) ? 2000 : false;
    },
  });

export const recordsQuery = (s: Scope, ptsId: number | null, f: RecordFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...sourcesKey, 'records', s.env, s.projectId, ptsId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<SourceRecordRow>>(
        '/project/source/records/list',
        { ...(f as ApiData), ptsId: ptsId ?? 0, pageNumber, pageSize },
        { silent: true },
      ),
    enabled: s.projectId !== null && ptsId !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });

export const recordDetailQuery = (s: Scope, id: number | null, version?: number) =>
  queryOptions({
    queryKey: [...sourcesKey, 'record', s.env, s.projectId, id, version ?? null],
    queryFn: () =>
      api.get<SourceRecordDetail>('/project/source/record/detail', { id: id ?? 0, version }, { silent: true }),
    enabled: s.projectId !== null && id !== null,
    retry: false,
  });

export const gatherPtsQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: [...sourcesKey, 'gatherPts', s.env, s.projectId, ptsId],
    queryFn: () =>
      api.post<GatherPtsDataDetail>('/project/SickFile/gatherPtsData/detail', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
    refetchInterval: (q) =>
      q.state.data?.tasks.some((t) => t.status === 0 || t.status === 1) ? 2000 : false,
  });

export const gatherTaskQuery = (s: Scope, taskId: number | null) =>
  queryOptions({
    queryKey: [...sourcesKey, 'gatherTask', s.env, s.projectId, taskId],
    queryFn: () => api.post<GatherDataDetail>('/project/gatherData/detail', { taskId: taskId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && taskId !== null,
    retry: false,
    refetchInterval: (q) => {
      const st = q.state.data?.task.status;
      return st === 0 || st === 1 ? 2000 : false;
    },
  });

export const matchQueueQuery = (
  s: Scope,
  f: { siteId?: number; status?: number },
  pageNumber: number,
  pageSize: number,
) =>
  queryOptions({
    queryKey: [...sourcesKey, 'match', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<MatchQueueRow>>('/project/source/match/list', { ...f, pageNumber, pageSize }, { silent: true }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const extractReportQuery = (s: Scope, f: ReportFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...sourcesKey, 'extractReport', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<TaskView>>('/pts/extract/report/listByPage', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const changeReportQuery = (
  s: Scope,
  kind: 'sync' | 'data',
  f: ReportFilters,
  pageNumber: number,
  pageSize: number,
) =>
  queryOptions({
    queryKey: [...sourcesKey, 'changeReport', kind, s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<ChangeRow>>(
        kind === 'sync' ? '/pts/extract/report/syncChangeListByPage' : '/dataChangeReport/pageQuery',
        { ...(f as ApiData), pageNumber, pageSize },
        { silent: true },
      ),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

/** After an extraction, an assignment or a connection change: every source list, and the progress panel. */
export async function afterSourceChange(qc: QueryClient): Promise<void> {
  await Promise.all([
    qc.invalidateQueries({ queryKey: sourcesKey }),
    qc.invalidateQueries({ queryKey: ['progress'] }),
  ]);
}
