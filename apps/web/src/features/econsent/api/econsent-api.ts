import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  EcAddResult,
  EcConfigView,
  EcParticipantPage,
  EcParticipantStatus,
  EcProviderKind,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

export interface EcFilters {
  siteId?: number;
  status?: EcParticipantStatus;
  consented?: boolean;
  added?: boolean;
  keyword?: string;
}

export interface EcConfigBody {
  kind: EcProviderKind;
  name: string;
  baseUrl?: string;
  studyCode?: string;
  secret?: string;
  timeoutMs: number;
  enabled: boolean;
  version?: number;
}

type Scope = { env: string; projectId: number | null };

/** POST /cloud/project/managePts/ec/participant/query: a page of the caller's sites' e-consent participants. */
export const participantPageQuery = (s: Scope, f: EcFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['econsent', 'participants', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () =>
      api.post<EcParticipantPage>(
        '/cloud/project/managePts/ec/participant/query',
        { ...f, pageNumber, pageSize },
        // the drawer shows why the list could not be read (not configured, system down) in place
        { silent: true },
      ),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });

export const ecConfigQuery = (s: Scope, enabled: boolean) =>
  queryOptions({
    queryKey: ['econsent', 'config', s.env, s.projectId],
    queryFn: () => api.post<EcConfigView | null>('/project/ec/config/get'),
    enabled: enabled && s.projectId !== null,
  });

export const econsentApi = {
  add: (participantIds: string[]) =>
    api.postJson<EcAddResult>('/cloud/project/managePts/add/pts', { participantIds }, { silent: true }),
  saveConfig: (body: EcConfigBody) =>
    api.postJson<EcConfigView>('/project/ec/config/save', { ...body }, { silent: true }),
  testConfig: () =>
    api.post<{ ok: boolean; message: string; participants: number | null; ms: number }>(
      '/project/ec/config/test',
      {},
      { silent: true },
    ),
};
