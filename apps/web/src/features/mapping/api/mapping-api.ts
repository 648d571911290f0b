import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  FormRow,
  ListCommValuesResult,
  ListFieldResult,
  MappingRuleInput,
  MappingRuleRow,
  MappingTestResult,
  SynonymRow,
  VersionRow,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

/** POST /crf/version/list: the design versions this environment sees. */
export const versionsQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['mapping', 'versions', s.env, s.projectId],
    queryFn: () => api.post<VersionRow[]>('/crf/version/list', undefined, { silent: true }),
    enabled: s.projectId !== null,
  });

export const formsQuery = (s: Scope, versionId: number | null) =>
  queryOptions({
    queryKey: ['mapping', 'forms', s.env, s.projectId, versionId],
    queryFn: () => api.get<FormRow[]>('/crf/form/list', { versionId: versionId! }, { silent: true }),
    enabled: s.projectId !== null && versionId !== null,
  });

/** POST /crf/config/listField: a form's items with their rule. */
export const fieldsQuery = (s: Scope, formId: number | null) =>
  queryOptions({
    queryKey: ['mapping', 'fields', s.env, s.projectId, formId],
    queryFn: () => api.post<ListFieldResult>('/crf/config/listField', { formId: formId! }, { silent: true }),
    enabled: s.projectId !== null && formId !== null,
    retry: false,
  });

/** POST /crf/config/listCommValues: a coded item's options and the source values seen for its codes. */
export const commValuesQuery = (s: Scope, formId: number, variable: string, codes: string) =>
  queryOptions({
    queryKey: ['mapping', 'commValues', s.env, s.projectId, formId, variable, codes],
    queryFn: () =>
      api.post<ListCommValuesResult>(
        '/crf/config/listCommValues',
        { formId, variable, ...(codes ? { codes } : {}) },
        { silent: true },
      ),
    enabled: s.projectId !== null,
    retry: false,
  });

export type SynonymKind = 'ocr' | 'text';

/** The synonym screens' calls: /ocrConfig/same… and /textConfig/same… (global), /project/… (the project's). */
export const synonymBase = (kind: SynonymKind, project: boolean) =>
  `${project ? '/project' : ''}/${kind === 'ocr' ? 'ocrConfig' : 'textConfig'}/same`;

export const synonymsQuery = (s: Scope, kind: SynonymKind, project: boolean, term: string, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['mapping', 'synonyms', s.env, project ? s.projectId : null, kind, term, pageNumber, pageSize],
    queryFn: () =>
      api.post<Page<SynonymRow>>(
        `${synonymBase(kind, project)}/list`,
        { ...(term ? { term } : {}), pageNumber, pageSize },
        { silent: true },
      ),
    enabled: !project || s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const mappingApi = {
  save: (rule: MappingRuleInput & { id?: number; version?: number }) =>
    api.postJson<MappingRuleRow>('/crf/config/mapping/save', { ...rule }, { silent: true }),
  remove: (id: number, version: number) =>
    api.post<unknown>('/crf/config/mapping/delete', { id, version }, { silent: true }),
  test: (b: { ptsId: number; visitId: number; unscheduledId: number; ruleId?: number; rule?: MappingRuleInput }) =>
    api.postJson<MappingTestResult>('/crf/config/mapping/test', { ...b }, { silent: true }),
  saveSynonym: (kind: SynonymKind, project: boolean, b: { id?: number; version?: number; term: string; synonyms: string[] }) =>
    api.postJson<SynonymRow>(`${synonymBase(kind, project)}/save`, { ...b }, { silent: true }),
  removeSynonym: (kind: SynonymKind, project: boolean, id: number) =>
    api.post<unknown>(`${synonymBase(kind, project)}/delete`, { id }, { silent: true }),
};
