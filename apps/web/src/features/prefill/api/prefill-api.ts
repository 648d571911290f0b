import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  PrefillConfirmResult,
  PrefillDecisionInput,
  PrefillExecuteResult,
  PrefillLogRow,
  PrefillScheduleView,
  PrefillVisitRow,
  SourceRecordView,
  TraceabilityRow,
  FormRow,
  VersionRow,
  VisitRow,
} from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

export interface PrefillKey {
  ptsId: number;
  visitId: number;
  formId: number;
  unscheduledId: number;
  repeatNo: number;
}

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface TraceFilters {
  ptsId?: number;
  visitId?: number;
  formId?: number;
}

export interface ScheduleInput {
  startDate: string;
  endDate: string;
  frequency: 'daily' | 'weekly' | 'monthly';
  days: number[];
  enabled: boolean;
  version?: number;
}

/** POST /crf/prefill/execute: the candidates of one form of a subject visit, against the form as it is now. */
export const candidatesQuery = (s: Scope, k: PrefillKey) =>
  queryOptions({
    queryKey: ['prefill', 'candidates', s.env, s.projectId, k],
    queryFn: () => api.post<PrefillExecuteResult>('/crf/prefill/execute', { ...k }, { silent: true }),
    enabled: s.projectId !== null,
    retry: false,
    refetchOnWindowFocus: false,
  });

/** POST /crf/prefill/visit/list: a subject's visits with the candidates waiting per form. */
export const prefillVisitsQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: ['prefill', 'visits', s.env, s.projectId, ptsId],
    queryFn: () => api.post<PrefillVisitRow[]>('/crf/prefill/visit/list', { ptsId: ptsId ?? 0 }, { silent: true }),
    enabled: s.projectId !== null && ptsId !== null,
    retry: false,
  });

/** GET /crf/prefill/source/record: a source record version with its raw payload. */
export const sourceRecordQuery = (s: Scope, id: number, version?: number) =>
  queryOptions({
    queryKey: ['prefill', 'record', s.env, s.projectId, id, version ?? null],
    queryFn: () =>
      api.get<SourceRecordView>('/crf/prefill/source/record', version ? { id, version } : { id }, { silent: true }),
    enabled: s.projectId !== null,
    retry: false,
  });

/** POST /project/icrc-source: value → source, paged. */
export const traceabilityQuery = (s: Scope, f: TraceFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['prefill', 'trace', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<TraceabilityRow>>('/project/icrc-source', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

/** POST /audit/log/preFillCrfQuery: the pre-fill decisions (new / merge / ignore / inject), newest first, paged. */
export const decisionsQuery = (s: Scope, f: TraceFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['prefill', 'decisions', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<PrefillLogRow>>('/audit/log/preFillCrfQuery', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

/** POST /crf/prefill/schedule/config/info: the project's pre-fill schedule in this environment (null: none yet). */
export const scheduleQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['prefill', 'schedule', s.env, s.projectId],
    queryFn: () => api.post<PrefillScheduleView | null>('/crf/prefill/schedule/config/info', undefined, { silent: true }),
    enabled: s.projectId !== null,
    retry: false,
  });

export const prefillApi = {
  confirm: (k: PrefillKey, version: number | undefined, decisions: PrefillDecisionInput[]) =>
    api.postJson<PrefillConfirmResult>(
      '/crf/prefill/visit/confirm',
      { ...k, ...(version ? { version } : {}), decisions },
      { silent: true },
    ),
  clean: (k: Omit<PrefillKey, 'repeatNo' | 'formId'> & { formId?: number }) =>
    api.post<{ removed: number }>('/crf/prefill/clean', { ...k }, { silent: true }),
  exportTrace: (f: TraceFilters) =>
    api.get<Blob>('/project/icrc-source/export', { ...(f as ApiData) }, { raw: true, silent: true }),
  saveSchedule: (b: ScheduleInput) =>
    api.post<PrefillScheduleView>(
      '/crf/prefill/schedule/config/savaOrUpdate',
      { ...b, days: b.days.join(','), enabled: String(b.enabled) },
      { silent: true },
    ),
};

/** The visits of the design version in force here and its forms, for the report's filters. */
export const enabledDesignQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['prefill', 'design', s.env, s.projectId],
    queryFn: async () => {
      const d = await api.post<{ version: VersionRow | null; visits: VisitRow[] }>(
        '/pro/visit/listByEnabledVersion',
        undefined,
        { silent: true },
      );
      const forms = d.version ? await api.get<FormRow[]>('/crf/form/list', { versionId: d.version.id }, { silent: true }) : [];
      return { version: d.version, visits: d.visits, forms };
    },
    enabled: s.projectId !== null,
    staleTime: 60_000,
  });
