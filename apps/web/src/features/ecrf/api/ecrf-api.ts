import { queryOptions } from '@tanstack/react-query';
import type { FormDefinition, PendingReview, SignatureMeaning } from '@esource/shared';
import { api } from '../../../lib/api-client';
import type { SaveItem, StoredValues } from '../ecrf-logic';

export interface CrfKey {
  ptsId: number;
  visitId: number;
  formId: number;
  unscheduledId: number;
  repeatNo: number;
}

export interface CrfView {
  instance: {
    id: number;
    status: number;
    version: number;
    repeatNo: number;
    certifiedBy: string | null;
    certifiedAt: string | null;
    updateTime: string;
    /** a participant's answers (shared form) wait for the site's review */
    pendingReview?: PendingReview | null;
  } | null;
  values: StoredValues;
  formId: number;
  formName: string;
  formCode: string;
  cycle: boolean;
  definition: FormDefinition;
}

export interface HistoryRow {
  id: number;
  variable: string;
  oldValue: unknown;
  newValue: unknown;
  entryMode: number;
  reason: string | null;
  /** 'condition': cleared because a display condition hid the item */
  cause?: string | null;
  /** 'range': the new value is outside a soft range (data-quality flag) */
  quality?: string | null;
  userName: string | null;
  createTime: string;
}

type Scope = { env: string; projectId: number | null };

export const crfQuery = (s: Scope, k: CrfKey) =>
  queryOptions({
    queryKey: ['ecrf', 'form', s.env, s.projectId, k],
    queryFn: () => api.get<CrfView>('/crf/form/item/result/list', { ...k }, { silent: true }),
    enabled: s.projectId !== null,
    retry: false,
    refetchOnWindowFocus: false,
  });

export const historyQuery = (s: Scope, instanceId: number, variable: string) =>
  queryOptions({
    queryKey: ['ecrf', 'history', s.env, s.projectId, instanceId, variable],
    queryFn: () => api.get<HistoryRow[]>('/crf/form/item/result/history', { instanceId, variable }),
  });

export const ecrfApi = {
  save: (k: CrfKey, version: number | undefined, entryMode: number, items: SaveItem[]) =>
    api.postJson<CrfView>(
      '/crf/form/item/result/saveBatch',
      { ...k, version, entryMode, items },
      { silent: true },
    ),
  /** an electronic signature: the password digest re-authenticates the signer */
  certify: (instanceId: number, version: number, password: string, meaning: SignatureMeaning) =>
    api.post<unknown>('/crf/report/check', { instanceId, version, password, meaning }, { silent: true }),
  uncertify: (instanceId: number, version: number, reason: string) =>
    api.post<unknown>('/crf/report/checkCancel', { instanceId, version, reason }, { silent: true }),
  /** certify several completed forms (a visit) at the versions shown; all or nothing */
  certifyBatch: (items: { instanceId: number; version: number }[], password: string, meaning: SignatureMeaning) =>
    api.postJson<unknown>('/crf/form/item/result/checkBatch', { items, password, meaning }, { silent: true }),
  deleteRepeat: (instanceId: number, reason: string) =>
    api.post<unknown>('/crf/form/item/result/deleteRepeatForm', { instanceId, reason }, { silent: true }),
};
