import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  Language,
  MicroCrfConfigSave,
  MicroCrfConfigView,
  MicroDcConfigSave,
  MicroDcConfigView,
  MicroDcFormRow,
  ShareCreated,
  ShareCreateRequest,
  SharePage,
  SharePublicView,
  ShareReview,
  ShareRow,
  ShareStatus,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

/** The list filters as the page keeps them. */
export type ShareFilters = {
  status?: ShareStatus | undefined;
  review?: ShareReview | undefined;
  siteId?: number | undefined;
  keyword?: string | undefined;
  mine?: boolean | undefined;
  sortField?: 'createTime' | 'expiresAt' | undefined;
  sortOrder?: 'asc' | 'desc' | undefined;
};

type Scope = { env: string; projectId: number | null };

/** The shared-form calls (server: modules/ddc; docs/decisions.md "Shared forms"). */
export const ddcApi = {
  create: (input: ShareCreateRequest) =>
    api.postJson<ShareCreated>('/ddc/share/add', input, { silent: true }),
  page: (q: ShareFilters & { pageNumber: number; pageSize: number }) =>
    api.post<SharePage>('/ddc/share/page', q),
  revoke: (id: number, reason: string | undefined) =>
    api.post<ShareRow>('/ddc/share/revoke', { id, reason }, { silent: true }),
  code: (id: number) => api.get<{ code: string }>('/ddc/share/link', { id }, { silent: true }),
  accept: (instanceId: number, version: number) =>
    api.post<{ id: number; status: number; version: number }>(
      '/ddc/share/accept',
      { instanceId, version },
      { silent: true },
    ),
  crfConfig: () => api.get<MicroCrfConfigView>('/micro/crf/config/get'),
  saveCrfConfig: (v: MicroCrfConfigSave) =>
    api.postJson<MicroCrfConfigView>('/micro/crf/config/save', v, { silent: true }),
  dcConfig: () => api.get<MicroDcConfigView>('/micro/dc/config/get'),
  saveDcConfig: (v: MicroDcConfigSave) =>
    api.postJson<MicroDcConfigView>('/micro/dc/config/save', v, { silent: true }),
  dcForms: () => api.get<MicroDcFormRow[]>('/micro/dc/forms'),
  /** the participant's calls: without any session header, in the page's language */
  publicForm: (code: string, language: Language) =>
    api.postJson<SharePublicView>(
      '/ddc/public/form',
      { code },
      { anonymous: true, silent: true, headers: { language } },
    ),
  publicSubmit: (code: string, items: { variable: string; value: unknown }[], language: Language) =>
    api.postJson<{ submittedAt: string }>(
      '/ddc/public/submit',
      { code, items },
      { anonymous: true, silent: true, headers: { language } },
    ),
};

export const ddcKey = ['ddc'] as const;

export const sharePageQuery = (s: Scope, q: ShareFilters & { pageNumber: number; pageSize: number }) =>
  queryOptions({
    queryKey: [...ddcKey, 'page', s.env, s.projectId, q] as const,
    queryFn: () => ddcApi.page(q),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const crfConfigQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...ddcKey, 'crfConfig', s.env, s.projectId] as const,
    queryFn: ddcApi.crfConfig,
    enabled: s.projectId !== null,
  });
export const dcConfigQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...ddcKey, 'dcConfig', s.env, s.projectId] as const,
    queryFn: ddcApi.dcConfig,
    enabled: s.projectId !== null,
  });
export const dcFormsQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...ddcKey, 'dcForms', s.env, s.projectId] as const,
    queryFn: ddcApi.dcForms,
    enabled: s.projectId !== null,
  });

/** The address a participant opens: this app's /s/{code} (under the app's base path when it runs inside a shell). */
export function shareUrl(code: string): string {
  const base = (import.meta.env.BASE_URL ?? '/').replace(/\/$/, '');
  return `${window.location.origin}${base}/s/${code}`;
}
