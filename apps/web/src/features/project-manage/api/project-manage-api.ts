import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { ProjectDetail, ProjectListRow } from '@esource/shared';
import { api } from '../../../lib/api-client';
import type { ProjectBody, ProjectPatch } from '../project-form';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export type SortField = 'no' | 'name' | 'status' | 'createTime';
export interface ProjectListParams {
  pageNumber: number;
  pageSize: number;
  keyword: string;
  status?: number;
  scene?: number;
  sortField: SortField;
  sortOrder: 'asc' | 'desc';
}

/** POST /pro/info/page with search, filters and sort (spec §7 Project). */
export const projectListQuery = (env: string, p: ProjectListParams) =>
  queryOptions({
    queryKey: ['project-manage', 'list', env, p],
    queryFn: () =>
      api.post<Page<ProjectListRow>>('/pro/info/page', {
        pageNumber: p.pageNumber,
        pageSize: p.pageSize,
        keyword: p.keyword || undefined,
        status: p.status,
        scene: p.scene,
        sortField: p.sortField,
        sortOrder: p.sortOrder,
      }),
    placeholderData: keepPreviousData,
  });

/** POST /pro/info/get: the open project (proId header), with its `version` for optimistic locking. */
export const openProjectQuery = (env: string, projectId: number | null) =>
  queryOptions({
    queryKey: ['project-manage', 'detail', env, projectId],
    queryFn: () => api.post<ProjectDetail>('/pro/info/get'),
    enabled: projectId !== null,
  });

// Writes are silent: the dialogs show the server's message next to the fields (or in the dialog) themselves.
export const projectManageApi = {
  create: (body: ProjectBody) => api.post<ProjectDetail>('/pro/info/add', { ...body }, { silent: true }),
  update: (body: ProjectPatch) => api.post<ProjectDetail>('/pro/info/update', { ...body }, { silent: true }),
  copy: (body: { id: number; no: string; name: string }) =>
    api.post<ProjectDetail>('/pro/info/copyProInfo', body, { silent: true }),
  setStatus: (body: { id: number; status: number; reason: string }) =>
    api.post<ProjectDetail>('/pro/info/updateStatus', body, { silent: true }),
  remove: (body: { id: number; reason?: string }) =>
    api.post<null>('/project/info/delete', body, { silent: true }),
  /** a new uuidNo: the entry link changes, old links stop working */
  resetUuid: (body: { id: number; version: number }) => api.post<ProjectDetail>('/pro/info/resetUuid', body),
};
