import { queryOptions } from '@tanstack/react-query';
import type { EdcLinkRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

/** Every key of this feature starts here. */
export const edcLinkKey = ['edcLink'] as const;

/**
 * Associate EDC (server: apps/server/src/modules/edc/edc-link.service.ts; contract: shared edc-link.schema). The
 * caller's own links only; the secret goes to the server once, on save, and never comes back.
 */
export const edcLinkApi = {
  list: () => api.postJson<EdcLinkRow[]>('/edc/link/list', {}, { silent: true }),
  save: (b: { configId: number; login: string; secret: string }) =>
    api.postJson<EdcLinkRow>('/edc/link/save', { ...b }, { silent: true }),
  remove: (configId: number) =>
    api.postJson<{ removed: true }>('/edc/link/remove', { configId }, { silent: true }),
};

/** The EDCs of the user's project environments with their link state (per user: the list is theirs). */
export const edcLinksQuery = (userId: number | null) =>
  queryOptions({
    queryKey: [...edcLinkKey, userId],
    queryFn: edcLinkApi.list,
    enabled: userId !== null,
  });
