import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { CasebookRequestInput, ExportFilePage, ExportFileView, StudyExportStart } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';

type Scope = { env: string; projectId: number | null };

/** Every key of this feature starts here. */
export const exportsKey = ['exports'] as const;

/** How often a file still being made is polled. */
export const EXPORT_POLL_MS = 1500;

export const isLive = (f: Pick<ExportFileView, 'status'>) => f.status === 'queued' || f.status === 'running';

/** The calls of generated files (server: apps/server/src/modules/exports; contracts: shared exports.schema). */
export const exportsApi = {
  printCasebook: (body: CasebookRequestInput) =>
    api.postJson<ExportFileView>('/print/getByItext', { ...(body as unknown as ApiData) }),
  startStudy: (body: Partial<StudyExportStart> & Pick<StudyExportStart, 'kind'>) =>
    api.postJson<ExportFileView>('/export/study/start', { ...(body as unknown as ApiData) }),
  get: (id: number) => api.post<ExportFileView>('/export/file/get', { id }, { silent: true }),
  list: (pageNumber: number, pageSize: number) =>
    api.post<ExportFilePage>('/export/file/list', { pageNumber, pageSize }),
  remove: (id: number) => api.post<null>('/export/file/delete', { id }),
  /** downloads the file and saves it under its name */
  download: async (f: Pick<ExportFileView, 'id' | 'fileName'>) => {
    const blob = await api.get<Blob>('/export/file/download', { id: f.id }, { raw: true });
    saveBlob(blob, f.fileName);
  },
};

/** One file, polled while it is being made. */
export const exportFileQuery = (s: Scope, id: number | null) =>
  queryOptions({
    queryKey: [...exportsKey, 'one', s.env, s.projectId, id],
    queryFn: () => exportsApi.get(id!),
    enabled: id !== null && s.projectId !== null,
    refetchInterval: (q) => (q.state.data && isLive(q.state.data) ? EXPORT_POLL_MS : false),
  });

/** The caller's files, polled while any is being made. */
export const exportListQuery = (s: Scope, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...exportsKey, 'list', s.env, s.projectId, pageNumber, pageSize],
    queryFn: () => exportsApi.list(pageNumber, pageSize),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.content.some(isLive) ? EXPORT_POLL_MS : false),
  });
