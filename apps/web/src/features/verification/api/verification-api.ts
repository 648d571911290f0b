import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { MarkView, SubjectRiskRow, VerificationPage } from '@esource/shared';
import { api } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

export interface VerificationFilters {
  siteId?: number;
  ptsNo?: string;
  state: 'remaining' | 'done' | 'all';
  requiredOnly: boolean;
}

/** Every key of this feature starts here: one invalidation refreshes marks and lists after a change. */
export const verificationKey = ['verification'] as const;

/** The calls of SDV/SDR (server: apps/server/src/modules/verification; contracts: shared verification.schema). */
export const verificationApi = {
  marks: (instanceId: number) => api.get<MarkView[]>('/crf/report/marks', { instanceId }, { silent: true }),
  mark: (kind: 'sdv' | 'sdr', instanceIds: number[], variables?: string[]) =>
    api.postJson<{ marked: number; already: number }>('/crf/report/saveItemMark', { kind, instanceIds, ...(variables ? { variables } : {}) }, { silent: true }),
  remove: (ids: number[], reason: string) => api.postJson<{ removed: number }>('/crf/report/deleteItemMark', { ids, reason }, { silent: true }),
  page: (f: VerificationFilters, pageNumber: number, pageSize: number) => api.postJson<VerificationPage>('/verification/page', { ...f, pageNumber, pageSize }, { silent: true }),
  setRisk: (siteId: number, riskLevel: number) => api.postJson<null>('/verification/risk', { siteId, riskLevel }),
  /** null: the subject inherits its site's level again; silent: the dialog shows the error */
  setSubjectRisk: (ptsId: number, riskLevel: number | null, reason?: string) =>
    api.postJson<null>('/verification/subjectRisk', { ptsId, riskLevel, ...(reason ? { reason } : {}) }, { silent: true }),
  subjectRisks: () => api.get<SubjectRiskRow[]>('/verification/subjectRisk/list', undefined, { silent: true }),
};

export const marksQuery = (instanceId: number | null, enabled = true) =>
  queryOptions({ queryKey: [...verificationKey, 'marks', instanceId], queryFn: () => verificationApi.marks(instanceId!), enabled: enabled && instanceId !== null });

export const verificationPageQuery = (s: Scope, f: VerificationFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...verificationKey, 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => verificationApi.page(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
  });

/** The subjects with a risk level of their own (the risk drawer). */
export const subjectRisksQuery = (s: Scope, enabled: boolean) =>
  queryOptions({ queryKey: [...verificationKey, 'subjectRisks', s.env, s.projectId], queryFn: verificationApi.subjectRisks, enabled: enabled && s.projectId !== null });

export function afterVerificationChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: verificationKey });
}
