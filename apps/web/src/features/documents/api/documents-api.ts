import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  ProcessBarPdfResult,
  SourceFileDetail,
  SourceFilePage,
  SourceFileTab,
  SourceFileTextMask,
  SourceFileView,
  SubjectPdfView,
  sourceFileBoxInput,
  sourceFileTabCounts,
} from '@esource/shared';
import type { z } from 'zod';
import { api, type ApiData } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

export type BoxInput = z.input<typeof sourceFileBoxInput>;
export type TabCounts = z.infer<typeof sourceFileTabCounts>;

export interface FileFilters {
  siteId?: number;
  ptsId?: number;
  ptsNo?: string;
  fileName?: string;
  status?: number;
  tab?: SourceFileTab;
  docType?: number;
  kind?: 'image' | 'pdf';
  sortField?: 'createTime' | 'updateTime' | 'ptsNo' | 'fileName' | 'status' | 'size';
  sortOrder?: 'asc' | 'desc';
}

/** Every key of this feature starts here: one invalidation refreshes its lists, counts and details after a change. */
export const documentsKey = ['documents'] as const;

/** The calls of the source-document screens (server: apps/server/src/modules/documents; contracts: shared documents.schema). */
export const documentsApi = {
  types: () => api.get<{ value: number; code: string; label: string }[]>('/source/file/type/list'),
  /** the visits (stages) of a subject a document can be attached to */
  stages: (ptsId: number) =>
    api.get<{ visitId: number; unscheduledId: number; code: string; name: string; nameEn: string | null; planned: string | null; state: string }[]>('/source/file/openStageList', { ptsId }, { silent: true }),
  page: (f: FileFilters, pageNumber: number, pageSize: number) =>
    api.post<SourceFilePage>('/source/file/page', { ...(f as ApiData), pageNumber, pageSize }),
  counts: () => api.post<TabCounts>('/source/file/messageCount', undefined, { silent: true }),
  detail: (id: number) => api.get<SourceFileDetail>('/source/file/detail', { id }),
  /** one page as an image (auth header, so fetched, not an <img src>) */
  pageImage: (id: number, page: number, copy: 'redacted' | 'original', width?: number) =>
    api.get<Blob>(
      '/source/file/pageImage',
      { id, page, copy, ...(width ? { width } : {}) },
      { raw: true, silent: true },
    ),
  file: (id: number, copy: 'redacted' | 'original') => api.get<Blob>('/source/file/read', { id, copy }, { raw: true }),
  upload: (fields: { ptsId: number; docType: number; visitId?: number }, files: File[]) => {
    const fd = new FormData();
    fd.append('ptsId', String(fields.ptsId));
    fd.append('docType', String(fields.docType));
    if (fields.visitId) fd.append('visitId', String(fields.visitId));
    for (const f of files) fd.append('files', f, f.name);
    return api.post<{ files: SourceFileView[] }>('/source/file/uploadImgNew', undefined, { multipart: fd, silent: true });
  },
  saveBoxes: (id: number, version: number, boxes: BoxInput[], masks: SourceFileTextMask[]) =>
    api.postJson<SourceFileDetail>('/source/file/saveBoxes', { id, version, boxes, masks }),
  setStatus: (id: number, version: number, status: number, reason?: string) =>
    api.post<SourceFileView>('/source/file/updateStatus', { id, version, status, ...(reason ? { reason } : {}) }),
  withdraw: (id: number, version: number) => api.post<SourceFileView>('/source/file/withdrawStatus', { id, version }),
  redeid: (id: number, version: number) => api.post<SourceFileView>('/source/file/redeid', { id, version }),
  /** an upload waiting for confirmation (fileConfirmConfig) goes on to automatic de-identification */
  confirm: (id: number, version: number) => api.post<SourceFileView>('/source/file/confirm', { id, version }),
  discard: (id: number, version: number, reason: string) =>
    api.post<SourceFileView>('/source/file/discard', { id, version, reason }),
};

export const docTypesQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...documentsKey, 'types', s.env, s.projectId],
    queryFn: documentsApi.types,
    staleTime: 10 * 60_000,
    enabled: s.projectId !== null,
  });

/** A page of files; polled every 3 s while one of its files is still being de-identified automatically. */
export const filePageQuery = (s: Scope, f: FileFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...documentsKey, 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => documentsApi.page(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
    refetchInterval: (q) => (q.state.data?.content.some((r) => r.status === 0) ? 3000 : false),
  });

export const tabCountsQuery = (s: Scope, enabled = true) =>
  queryOptions({
    queryKey: [...documentsKey, 'counts', s.env, s.projectId],
    queryFn: documentsApi.counts,
    enabled: enabled && s.projectId !== null,
    refetchInterval: 30_000,
    retry: false,
  });

export const fileDetailQuery = (id: number | null) =>
  queryOptions({
    queryKey: [...documentsKey, 'detail', id],
    queryFn: () => documentsApi.detail(id!),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.status === 0 ? 3000 : false),
  });

/** A page image (or a thumbnail of it); keyed by the file's version, so a new copy is fetched after a change. */
export const pageImageQuery = (
  id: number,
  version: number,
  page: number,
  copy: 'redacted' | 'original',
  width?: number,
  enabled = true,
) =>
  queryOptions({
    queryKey: [...documentsKey, 'image', id, version, page, copy, width ?? 0],
    queryFn: () => documentsApi.pageImage(id, page, copy, width),
    enabled,
    staleTime: Infinity,
    gcTime: 60_000,
    retry: false,
  });

/** After an upload or a status change: every list, count and detail of the feature again. */
export function afterDocumentChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: documentsKey });
}

export const pdfApi = {
  start: (ptsId: number) => api.post<SubjectPdfView>('/project/manage/synthesisPdf', { ptsId }),
  status: (ptsId: number) => api.post<ProcessBarPdfResult>('/project/manage/queryProcessBarPdf', { ptsId }, { silent: true }),
  download: (id: number) => api.get<Blob>('/project/manage/downloadPdf', { id }, { raw: true }),
};

/** The subject's PDF synthesis; polled every 2 s while one runs. */
export const pdfStatusQuery = (ptsId: number) =>
  queryOptions({
    queryKey: [...documentsKey, 'pdf', ptsId],
    queryFn: () => pdfApi.status(ptsId),
    refetchInterval: (q) => (q.state.data?.running ? 2000 : false),
  });
