import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { IsfDocPage, IsfKindView, SourceFileView, isfKindSaveRequest } from '@esource/shared';
import type { z } from 'zod';
import { api, type ApiData } from '../../../lib/api-client';
import { documentsKey } from '../../documents';

type Scope = { env: string; projectId: number | null };

export type KindInput = z.input<typeof isfKindSaveRequest>;

export interface IsfFilters {
  siteId?: number;
  keyword?: string;
  state?: 'missing' | 'uploaded';
  required?: boolean;
}

/** Every key of this feature starts here; an ISF version's review and status live under the documents' keys. */
export const isfKey = ['isf'] as const;

/** The calls of the ISF screen (server: apps/server/src/modules/isf; contracts: shared isf.schema). */
export const isfApi = {
  kinds: () => api.get<IsfKindView[]>('/rf/kind/list', undefined, { silent: true }),
  saveKind: (k: KindInput) => api.postJson<IsfKindView>('/rf/kind/save', k, { silent: true }),
  deleteKind: (id: number, version: number) => api.postJson<null>('/rf/kind/delete', { id, version }),
  page: (f: IsfFilters, pageNumber: number, pageSize: number) => api.postJson<IsfDocPage>('/rf/file/page', { ...(f as ApiData), pageNumber, pageSize }, { silent: true }),
  versions: (kindId: number, siteId: number) => api.postJson<SourceFileView[]>('/rf/file/versions', { kindId, siteId }, { silent: true }),
  upload: (kindId: number, siteId: number, file: File) => {
    const fd = new FormData();
    fd.append('kindId', String(kindId));
    fd.append('siteId', String(siteId));
    fd.append('files', file, file.name);
    return api.post<SourceFileView>('/rf/file/upload', undefined, { multipart: fd, silent: true });
  },
  deleteFile: (id: number, version: number, reason: string) => api.postJson<null>('/rf/file/delete', { id, version, reason }, { silent: true }),
};

export const kindsQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...isfKey, 'kinds', s.env, s.projectId],
    queryFn: isfApi.kinds,
    enabled: s.projectId !== null,
  });

/** A page of the ISF; polled every 3 s while a newest version is still being de-identified. */
export const isfPageQuery = (s: Scope, f: IsfFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...isfKey, 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => isfApi.page(f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: s.projectId !== null,
    refetchInterval: (q) => (q.state.data?.content.some((r) => r.latest?.status === 0) ? 3000 : false),
  });

export const versionsQuery = (kindId: number, siteId: number) =>
  queryOptions({
    queryKey: [...isfKey, 'versions', kindId, siteId],
    queryFn: () => isfApi.versions(kindId, siteId),
    refetchInterval: (q) => (q.state.data?.some((f) => f.status === 0) ? 3000 : false),
  });

/** After a change: the ISF, its dot, and the documents' details (an ISF version is reviewed there). */
export async function afterIsfChange(qc: QueryClient): Promise<void> {
  await Promise.all([qc.invalidateQueries({ queryKey: isfKey }), qc.invalidateQueries({ queryKey: ['isf-dot'] }), qc.invalidateQueries({ queryKey: documentsKey })]);
}
