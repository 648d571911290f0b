import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { Hl7MessageCount, Hl7MessageDetail, Hl7MessageListRequest, Hl7MessagePage, Hl7MessageRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

/**
 * The HL7 v2 message calls (server: apps/server/src/modules/hl7, contracts: shared hl7.schema). 'project': the
 * messages routed to the current project in the current environment; 'system': those no project could be found for.
 */
export type Hl7Scope = 'project' | 'system';

const base = (scope: Hl7Scope) => `/${scope}/hl7/message`;

export const hl7Api = {
  list: (scope: Hl7Scope, q: Hl7MessageListRequest) => api.postJson<Hl7MessagePage>(`${base(scope)}/list`, { ...q }),
  detail: (scope: Hl7Scope, id: number) => api.postJson<Hl7MessageDetail>(`${base(scope)}/detail`, { id }),
  replay: (scope: Hl7Scope, id: number) => api.postJson<Hl7MessageRow>(`${base(scope)}/replay`, { id }, { silent: true }),
  count: (scope: Hl7Scope) => api.postJson<Hl7MessageCount>(`${base(scope)}/count`, {}),
};

/** Every key of this feature starts here: one invalidation refreshes the lists, details and counts. */
export const hl7Key = ['hl7'] as const;

/** Where the data comes from: the scope, the environment and (project scope) the project. */
export interface Hl7Where {
  scope: Hl7Scope;
  env: string;
  projectId: number | null;
}
const whereKey = (w: Hl7Where) => [...hl7Key, w.scope, w.env, w.scope === 'project' ? w.projectId : null] as const;

export const hl7ListQuery = (w: Hl7Where, q: Hl7MessageListRequest) =>
  queryOptions({
    queryKey: [...whereKey(w), 'list', q] as const,
    queryFn: () => hl7Api.list(w.scope, q),
    placeholderData: keepPreviousData,
  });

export const hl7DetailQuery = (w: Hl7Where, id: number) =>
  queryOptions({
    queryKey: [...whereKey(w), 'detail', id] as const,
    queryFn: () => hl7Api.detail(w.scope, id),
  });

export const hl7CountQuery = (w: Hl7Where) =>
  queryOptions({
    queryKey: [...whereKey(w), 'count'] as const,
    queryFn: () => hl7Api.count(w.scope),
    refetchInterval: 60_000,
  });

/**
 * After a replay: lists, details and counts of every scope (a replayed message may move into a project), except the
 * replayed message's own detail in the open drawer: from the system scope it may be gone (it moved into a project),
 * and its raw text does not change.
 */
export async function afterReplay(qc: QueryClient, w: Hl7Where, id: number): Promise<void> {
  const own = JSON.stringify([...whereKey(w), 'detail', id]);
  await qc.invalidateQueries({ queryKey: hl7Key, predicate: (q) => JSON.stringify(q.queryKey) !== own });
}
