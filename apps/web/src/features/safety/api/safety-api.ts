import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { MedicationSubjectRow, CandidatePage, CandidateSource, CandidateView, GenerateResult, GenerateStatus, SafetyCategory, candidateCounts, judgementHistoryRow } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };
export type CandidateCounts = z.infer<typeof candidateCounts>;
export type JudgementHistory = z.infer<typeof judgementHistoryRow>[];
export type CandidateState = 'toJudge' | 'judged' | 'yes' | 'no' | 'all';

export interface CandidateFilters {
  state: CandidateState;
  category?: SafetyCategory;
  origin?: string;
  siteId?: number;
  ptsId?: number;
  ptsNo?: string;
  keyword?: string;
  minGrade?: number;
  sourceChanged?: boolean;
  sortField?: 'startDate' | 'ptsNo' | 'term' | 'grade' | 'judgedAt' | 'createTime';
  sortOrder?: 'asc' | 'desc';
}

export interface MedicationFilters {
  siteId?: number;
  ptsNo?: string;
  keyword?: string;
  sortField?: 'ptsNo' | 'medications' | 'lastStart';
  sortOrder?: 'asc' | 'desc';
}

/** Every key of this feature starts here: one invalidation refreshes its lists, counts and details. */
export const safetyKey = ['safety'] as const;

export interface JudgeInput {
  id: number;
  version: number;
  decision: 'yes' | 'no';
  fields?: Record<string, unknown>;
  reason?: string;
}

/** The calls of the safety review (server: apps/server/src/modules/safety; contracts: shared safety.schema). */
export const safetyApi = {
  list: (f: CandidateFilters, pageNumber: number, pageSize: number) => api.postJson<CandidatePage>('/selection/list', { ...(f as unknown as ApiData), pageNumber, pageSize }, { silent: true }),
  counts: () => api.post<CandidateCounts>('/selection/count', undefined, { silent: true }),
  detail: (id: number) => api.get<CandidateView>('/selection/detail', { id }, { silent: true }),
  history: (id: number) => api.get<JudgementHistory>('/selection/history', { id }, { silent: true }),
  sources: (id: number) => api.postJson<CandidateSource[]>('/selection/source/list', { id }, { silent: true }),
  link: (id: number, recordId: number, unlink = false) => api.postJson<CandidateSource[]>('/selection/link', { id, recordId, unlink }, { silent: true }),
  judge: (input: JudgeInput) => api.postJson<CandidateView>('/selection/judge', { ...input }, { silent: true }),
  generate: (ptsId?: number) => api.postJson<GenerateResult>('/selection/generate', ptsId ? { ptsId } : {}, { silent: true }),
  generateStatus: (id: number) => api.get<GenerateStatus>('/selection/generate/status', { id }, { silent: true }),
  medicationSubjects: (f: MedicationFilters, pageNumber: number, pageSize: number) =>
    api.postJson<{ pageNumber: number; pageSize: number; totalCount: number; content: MedicationSubjectRow[] }>('/selection/medication/subjects', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
  exportFile: (f: CandidateFilters) => api.get<Blob>('/selection/export', { ...(f as unknown as ApiData) }, { raw: true }),
};

export const candidatePageQuery = (s: Scope, f: CandidateFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...safetyKey, 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => safetyApi.list(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

export const candidateCountsQuery = (s: Scope) =>
  queryOptions({ queryKey: [...safetyKey, 'counts', s.env, s.projectId], queryFn: safetyApi.counts, enabled: s.projectId !== null });

export const candidateDetailQuery = (id: number | null) =>
  queryOptions({ queryKey: [...safetyKey, 'detail', id], queryFn: () => safetyApi.detail(id!), enabled: id !== null });

export const candidateSourcesQuery = (id: number | null) =>
  queryOptions({ queryKey: [...safetyKey, 'sources', id], queryFn: () => safetyApi.sources(id!), enabled: id !== null });

export const candidateHistoryQuery = (id: number | null) =>
  queryOptions({ queryKey: [...safetyKey, 'history', id], queryFn: () => safetyApi.history(id!), enabled: id !== null });

export function afterSafetyChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: safetyKey });
}

export const medicationSubjectsQuery = (s: Scope, f: MedicationFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...safetyKey, 'medication', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => safetyApi.medicationSubjects(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

/** Every medication and adverse event of one subject (the medication timeline), at most 200 of each. */
export const subjectSafetyQuery = (s: Scope, ptsId: number | null) =>
  queryOptions({
    queryKey: [...safetyKey, 'subject', s.env, s.projectId, ptsId],
    queryFn: async () => {
      const [cm, ae] = await Promise.all([
        safetyApi.list({ state: 'all', category: 'cm', ptsId: ptsId!, sortField: 'startDate', sortOrder: 'asc' }, 1, 200),
        safetyApi.list({ state: 'yes', category: 'ae', ptsId: ptsId!, sortField: 'startDate', sortOrder: 'asc' }, 1, 200),
      ]);
      return { cm: cm.content, ae: ae.content };
    },
    enabled: s.projectId !== null && ptsId !== null,
  });
