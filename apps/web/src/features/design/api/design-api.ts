import { queryOptions } from '@tanstack/react-query';
import type { DesignImportResult, FormRow, VersionRow, VisitRow } from '@esource/shared';
import { api } from '../../../lib/api-client';
import type { VisitBody } from '../visit-plan';

export interface StageRow {
  id: number;
  versionId: number;
  name: string;
  sortOrder: number;
}

type Scope = { env: string; projectId: number | null };

/** POST /crf/version/list: design versions (outside DEV only those published to this environment). */
export const versionsQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['design', 'versions', s.env, s.projectId],
    queryFn: () => api.post<VersionRow[]>('/crf/version/list'),
    enabled: s.projectId !== null,
  });

export const stagesQuery = (s: Scope, versionId: number | null) =>
  queryOptions({
    queryKey: ['design', 'stages', s.env, s.projectId, versionId],
    queryFn: () => api.get<StageRow[]>('/pro/stage/list', { versionId: versionId! }),
    enabled: s.projectId !== null && versionId !== null,
  });

export const visitsQuery = (s: Scope, versionId: number | null) =>
  queryOptions({
    queryKey: ['design', 'visits', s.env, s.projectId, versionId],
    queryFn: () => api.get<VisitRow[]>('/pro/visit/list', { versionId: versionId! }),
    enabled: s.projectId !== null && versionId !== null,
  });

export const formsQuery = (s: Scope, versionId: number | null) =>
  queryOptions({
    queryKey: ['design', 'forms', s.env, s.projectId, versionId],
    queryFn: () => api.get<FormRow[]>('/crf/form/list', { versionId: versionId! }),
    enabled: s.projectId !== null && versionId !== null,
  });

export const designApi = {
  createVersion: (name: string, basedOnId?: number) =>
    api.post<VersionRow>('/crf/version/add', { name, basedOnId }, { silent: true }),
  publish: (id: number, envs: ('UAT' | 'PRO')[]) =>
    api.post<VersionRow>('/crf/version/publish', { id, envs }, { silent: true }),
  saveStage: (b: { id?: number; versionId: number; name: string; sortOrder: number }) =>
    api.post<StageRow>('/pro/stage/save', b, { silent: true }),
  deleteStage: (id: number) => api.post<null>('/pro/stage/delete', { id }),
  addVisit: (b: VisitBody) => api.post<VisitRow>('/pro/visit/add', { ...b }, { silent: true }),
  updateVisit: (b: VisitBody) => api.post<VisitRow>('/pro/visit/update', { ...b }, { silent: true }),
  deleteVisit: (id: number) => api.post<null>('/pro/visit/delete', { id }),
  /** GET /project/info/export: the version's design (stages, visits, forms) as one JSON file, or as CDISC ODM 1.3.2 */
  exportDesign: (versionId: number, format: 'json' | 'odm' = 'json') =>
    api.get<Blob>('/project/info/export', { versionId, format }, { raw: true }),
  /** POST /project/info/import: a design file becomes a new unpublished version (DEV) */
  importDesign: (content: string) => api.postJson<DesignImportResult>('/project/info/import', { content }),
};
