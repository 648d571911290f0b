import type { FormDefinition, FormRow, VersionRow } from '@esource/shared';
import { api } from '../../lib/api-client';

/** The form designer's calls (server: apps/server/src/modules/design/design.routes.ts). */
export const designerApi = {
  versions: () => api.post<VersionRow[]>('/crf/version/list'),
  form: (id: number) => api.get<FormRow>('/crf/form/get', { id }),
  save: (body: { versionId: number; id?: number; lockVersion?: number; definition: FormDefinition }) =>
    api.postJson<FormRow>('/crf/form/save', body, { silent: true }),
  import: (versionId: number, content: string) => api.postJson<FormRow>('/crf/form/import', { versionId, content }, { silent: true }),
  exportFile: (id: number) => api.get<Blob>('/crf/form/export', { id }, { raw: true }),
};

