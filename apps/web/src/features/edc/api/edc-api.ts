import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  EdcConfigView,
  EdcLogDetail,
  EdcLogRow,
  EdcMappingLevel,
  EdcMappingView,
  EdcRunView,
  EdcTargetItemView,
  PtsEdcFormRow,
  PtsEdcRow,
  SyncCenterStatusRow,
  VersionRow,
} from '@esource/shared';
import { EDC_SYNC_STATUS } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };
interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

/** Every key of this feature starts here. */
export const edcKey = ['edc'] as const;
/** The sync-state lists (sites, subjects, a subject's forms, runs, the log): what a sync changes. */
export const edcStatusKey = [...edcKey, 'status'] as const;
/** How often the lists are read again while a run is queued or running. */
export const EDC_POLL_MS = 3_000;

export interface EdcConfigInput {
  kind: 1 | 3;
  name: string;
  baseUrl: string;
  studyOid?: string;
  targetEnv?: string;
  /** absent: unchanged */
  secret?: string;
  timeoutMs: number;
  schedule: 'hourly' | 'daily' | null;
  enabled: boolean;
  /** the version the editor loaded; absent for a new configuration */
  version?: number;
}

export interface EdcTestResult {
  ok: boolean;
  message: string;
  httpStatus: number | null;
  ms: number;
}

export interface EdcItemList {
  items: EdcTargetItemView[];
  fetchedAt: string | null;
}

/** One changed mapping row as /edc/mapping/save takes it (no target: the mapping is removed). */
export interface MappingSaveRow {
  level: EdcMappingLevel;
  localKey: string;
  target?: string;
  targetGroup?: string;
  valueMap?: Record<string, string>;
}

export interface SubjectFilters {
  siteId?: number;
  ptsNo?: string;
  status?: number;
}

export interface LogFilters {
  runId?: number;
  ptsNo?: string;
  siteId?: number;
  action?: 'sent' | 'refused' | 'conflict' | 'error';
  status?: 2 | 3;
  dataName?: string;
  createdBy?: number;
  /** YYYY-MM-DD */
  dateFrom?: string;
  dateTo?: string;
  sortOrder?: 'asc' | 'desc';
}

export type SyncScope =
  { scope: 'study' } | { scope: 'site'; siteId: number } | { scope: 'subject'; ptsId: number };

/** The calls of the EDC sync (server: apps/server/src/modules/edc; contracts: shared edc.schema). */
export const edcApi = {
  config: () => api.postJson<EdcConfigView | null>('/edc/config/get', {}, { silent: true }),
  saveConfig: (b: EdcConfigInput) =>
    api.postJson<EdcConfigView>('/edc/config/save', { ...b }, { silent: true }),
  testConfig: () => api.postJson<EdcTestResult>('/edc/config/test', {}, { silent: true }),
  itemList: (refresh: boolean) =>
    api.postJson<EdcItemList>('/crf/form/item/getEDCItemList', { refresh }, { silent: true }),
  versions: () => api.post<VersionRow[]>('/crf/version/list', undefined, { silent: true }),
  mapping: (versionId: number) =>
    api.postJson<EdcMappingView>('/edc/mapping/list', { versionId }, { silent: true }),
  saveMapping: (versionId: number, rows: MappingSaveRow[]) =>
    api.postJson<EdcMappingView>('/edc/mapping/save', { versionId, rows }, { silent: true }),
  autoMap: (versionId: number) =>
    api.postJson<EdcMappingView>('/edc/mapping/auto', { versionId }, { silent: true }),
  start: (s: SyncScope) =>
    api.postJson<EdcRunView>('/project/pts/job/handEDCStart', { ...s }, { silent: true }),
  centerStatus: () =>
    api.postJson<SyncCenterStatusRow[]>('/SyncCenterStatus/getSyncCenterStatusList', {}, { silent: true }),
  subjects: (f: SubjectFilters, pageNumber: number, pageSize: number) =>
    api.postJson<Page<PtsEdcRow>>(
      '/edcLog/getPtsEdcList',
      { ...(f as ApiData), pageNumber, pageSize },
      { silent: true },
    ),
  subjectForms: (ptsId: number) =>
    api.postJson<PtsEdcFormRow[]>('/edcLog/getPtsEdc', { ptsId }, { silent: true }),
  runs: (pageNumber: number, pageSize: number) =>
    api.postJson<Page<EdcRunView>>('/edcLog/exportList', { pageNumber, pageSize }, { silent: true }),
  logs: (f: LogFilters, pageNumber: number, pageSize: number) =>
    api.postJson<Page<EdcLogRow>>(
      '/edcLog/list',
      { ...(f as ApiData), pageNumber, pageSize },
      { silent: true },
    ),
  logDetail: (id: number) => api.postJson<EdcLogDetail>('/edcLog/getChangeLogList', { id }, { silent: true }),
  dataNames: () => api.postJson<string[]>('/edcLog/getDataNameList', {}, { silent: true }),
  creators: () => api.postJson<{ id: number; name: string }[]>('/edcLog/getCreator', {}, { silent: true }),
  exportLog: (f: LogFilters) =>
    api.get<Blob>('/edcLog/export', { ...(f as ApiData) }, { raw: true, silent: true }),
};

/** A run still to finish (queued or running). */
export const isLiveRun = (r: Pick<EdcRunView, 'status'>) =>
  r.status === EDC_SYNC_STATUS.pending || r.status === EDC_SYNC_STATUS.syncing;

const every = (poll: boolean) => (poll ? EDC_POLL_MS : false);

export const edcConfigQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...edcKey, 'config', s.env, s.projectId],
    queryFn: edcApi.config,
    enabled: s.projectId !== null,
  });

/** The item list as last read (never read: not asked, so that opening the page does not call the EDC). */
export const edcItemListQuery = (s: Scope, enabled: boolean) =>
  queryOptions({
    queryKey: [...edcKey, 'items', s.env, s.projectId],
    queryFn: () => edcApi.itemList(false),
    enabled: s.projectId !== null && enabled,
    staleTime: 60_000,
  });

export const edcVersionsQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...edcKey, 'versions', s.env, s.projectId],
    queryFn: edcApi.versions,
    enabled: s.projectId !== null,
  });

export const edcMappingQuery = (s: Scope, versionId: number | null) =>
  queryOptions({
    queryKey: [...edcKey, 'mapping', s.env, s.projectId, versionId],
    queryFn: () => edcApi.mapping(versionId!),
    enabled: s.projectId !== null && versionId !== null,
    // a refetch while the editor holds changes would only move the base under them
    refetchOnWindowFocus: false,
  });

/** The latest runs; polls itself while one of them is queued or running. */
export const edcLatestRunsQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'latest', s.env, s.projectId],
    queryFn: () => edcApi.runs(1, 50),
    enabled: s.projectId !== null,
    refetchInterval: (q) => (q.state.data?.content.some(isLiveRun) ? EDC_POLL_MS : false),
  });

export const edcRunsQuery = (s: Scope, pageNumber: number, pageSize: number, poll: boolean) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'runs', s.env, s.projectId, pageNumber, pageSize],
    queryFn: () => edcApi.runs(pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
    refetchInterval: every(poll),
  });

export const edcSitesQuery = (s: Scope, poll: boolean) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'sites', s.env, s.projectId],
    queryFn: edcApi.centerStatus,
    enabled: s.projectId !== null,
    refetchInterval: every(poll),
  });

export const edcSubjectsQuery = (
  s: Scope,
  f: SubjectFilters,
  pageNumber: number,
  pageSize: number,
  poll: boolean,
) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'subjects', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => edcApi.subjects(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
    refetchInterval: every(poll),
  });

export const edcSubjectFormsQuery = (s: Scope, ptsId: number, poll: boolean) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'forms', s.env, s.projectId, ptsId],
    queryFn: () => edcApi.subjectForms(ptsId),
    enabled: s.projectId !== null,
    refetchInterval: every(poll),
  });

export const edcLogsQuery = (s: Scope, f: LogFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'logs', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => edcApi.logs(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const edcLogDetailQuery = (id: number | null) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'log', id],
    queryFn: () => edcApi.logDetail(id!),
    enabled: id !== null,
  });

export const edcDataNamesQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'dataNames', s.env, s.projectId],
    queryFn: edcApi.dataNames,
    enabled: s.projectId !== null,
    staleTime: 30_000,
  });

export const edcCreatorsQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...edcStatusKey, 'creators', s.env, s.projectId],
    queryFn: edcApi.creators,
    enabled: s.projectId !== null,
    staleTime: 30_000,
  });

/** After a sync starts: the lists read again (the mapping and the settings are left alone). */
export function afterSyncStart(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: edcStatusKey });
}
