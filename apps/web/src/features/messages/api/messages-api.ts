import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { MessageListRequest, MessagePage, MessageRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

/** The message centre's calls (server: modules/messages). */
export const messagesApi = {
  list: (q: MessageListRequest) => api.postJson<MessagePage>('/message/manager/list', q),
  detail: (id: number) => api.get<MessageRow>('/message/manager/detail', { id }),
  read: (idList: number[]) => api.post<{ updated: number; unread: number }>('/message/manager/read', { idList }),
  readAll: () => api.post<{ updated: number; unread: number }>('/message/manager/readAll', {}),
};

export const messagesKey = ['messages'] as const;

export const messagesQuery = (q: MessageListRequest, env: string) =>
  queryOptions({
    queryKey: [...messagesKey, env, q] as const,
    queryFn: () => messagesApi.list(q),
    placeholderData: keepPreviousData,
  });

/** After a read: the list and the top bar's badge (key ['badge', token]) show the new counts at once. */
export async function afterRead(qc: QueryClient): Promise<void> {
  await Promise.all([
    qc.invalidateQueries({ queryKey: messagesKey }),
    qc.invalidateQueries({ queryKey: ['badge'] }),
  ]);
}
