import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  FeedbackCategory,
  FeedbackDetail,
  FeedbackMinePage,
  FeedbackPage,
  FeedbackReplyKind,
  FeedbackStatus,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

/** The list filters as the page keeps them (the time zone is the viewer's, added when sent). */
export type FeedbackListFilters = {
  status?: FeedbackStatus | undefined;
  category?: FeedbackCategory | undefined;
  keyword?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  sortOrder?: 'asc' | 'desc' | undefined;
};

export const viewerTimeZone = (): string =>
  Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai';

/** What the send form hands over; the page path is the one the user was on (path only: the server cuts the rest too). */
export interface FeedbackSend {
  category: FeedbackCategory;
  content: string;
  pagePath: string;
  screenshot?: File | undefined;
}

/** The feedback calls (server: modules/feedback; docs/decisions.md "Feedback"). */
export const feedbackApi = {
  add: (v: FeedbackSend) => {
    const fd = new FormData();
    fd.append('category', v.category);
    fd.append('content', v.content);
    fd.append('pagePath', v.pagePath);
    if (v.screenshot) fd.append('screenshot', v.screenshot, v.screenshot.name);
    return api.post<FeedbackDetail>('/feedback/add', undefined, { multipart: fd, silent: true });
  },
  mine: (pageNumber: number, pageSize: number) =>
    api.post<FeedbackMinePage>('/feedback/mine', { pageNumber, pageSize }),
  page: (q: FeedbackListFilters & { pageNumber: number; pageSize: number }) =>
    api.post<FeedbackPage>('/feedback/page', { ...q, timeZone: viewerTimeZone() }),
  detail: (id: number) => api.get<FeedbackDetail>('/feedback/detail', { id }),
  screenshot: (id: number) => api.get<Blob>('/feedback/screenshot', { id }, { raw: true }),
  /** answer, close (content = the note) or reopen; `version` is the one on screen */
  step: (kind: FeedbackReplyKind, id: number, version: number, content: string | undefined) =>
    api.post<FeedbackDetail>(
      kind === 'answer' ? '/feedback/reply' : `/feedback/${kind}`,
      { id, version, content },
      { silent: true },
    ),
  export: (f: FeedbackListFilters) =>
    api.get<Blob>('/feedback/export', { ...f, timeZone: viewerTimeZone() }, { raw: true }),
};

export const feedbackKey = ['feedback'] as const;

export const feedbackPageQuery = (q: FeedbackListFilters & { pageNumber: number; pageSize: number }) =>
  queryOptions({
    queryKey: [...feedbackKey, 'page', q] as const,
    queryFn: () => feedbackApi.page(q),
    placeholderData: keepPreviousData,
  });

export const feedbackDetailQuery = (id: number | null) =>
  queryOptions({
    queryKey: [...feedbackKey, 'detail', id] as const,
    queryFn: () => feedbackApi.detail(id!),
    enabled: id !== null,
  });

export const feedbackMineQuery = (pageNumber: number, pageSize: number, enabled: boolean) =>
  queryOptions({
    queryKey: [...feedbackKey, 'mine', pageNumber, pageSize] as const,
    queryFn: () => feedbackApi.mine(pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled,
  });

/** After a step or a new feedback: the lists, the detail and the message badge (an answer is a message). */
export async function afterFeedbackChange(qc: QueryClient): Promise<void> {
  await Promise.all([
    qc.invalidateQueries({ queryKey: feedbackKey }),
    qc.invalidateQueries({ queryKey: ['badge'] }),
  ]);
}
