import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  DictionaryKind,
  DictionarySearchHit,
  DictionarySortField,
  DictionaryTermPage,
  DictionaryView,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

/** Every key of this feature starts here: one invalidation refreshes versions, terms and searches. */
export const dictionariesKey = ['dictionaries'] as const;

export interface TermFilters {
  keyword?: string;
  sortField?: DictionarySortField;
  sortOrder?: 'asc' | 'desc';
}

export interface ImportInput {
  kind: DictionaryKind;
  version: string;
  name?: string;
  source?: string;
  file: File;
}

/** Where the search goes: the system route (system:dictionary:query) or, inside a project, the reviewers' route. */
export type SearchRoute = 'system' | 'project';

/** The calls of the dictionaries (server: apps/server/src/modules/dictionaries; contracts: shared dictionaries.schema). */
export const dictionariesApi = {
  versions: (kind?: DictionaryKind) =>
    api.post<DictionaryView[]>('/system/dictionary/list', kind ? { kind } : {}, { silent: true }),
  terms: (dictionaryId: number, f: TermFilters, pageNumber: number, pageSize: number) =>
    api.post<DictionaryTermPage>(
      '/system/dictionary/terms',
      { dictionaryId, ...f, pageNumber, pageSize },
      { silent: true },
    ),
  search: (route: SearchRoute, kind: DictionaryKind, text: string, limit = 20, signal?: AbortSignal) =>
    api.get<DictionarySearchHit[]>(
      `/${route}/dictionary/search`,
      { kind, text, limit },
      { silent: true, ...(signal ? { signal } : {}) },
    ),
  activate: (id: number) => api.post<DictionaryView>('/system/dictionary/activate', { id }, { silent: true }),
  template: (kind: DictionaryKind, format: 'xlsx' | 'csv') =>
    api.get<Blob>('/system/dictionary/template', { kind, format }, { raw: true }),
  importFile: (input: ImportInput) => {
    const fd = new FormData();
    fd.append('kind', input.kind);
    fd.append('version', input.version);
    if (input.name) fd.append('name', input.name);
    if (input.source) fd.append('source', input.source);
    fd.append('file', input.file);
    return api.post<DictionaryView>('/system/dictionary/import', undefined, { multipart: fd, silent: true });
  },
};

export const versionsQuery = (kind: DictionaryKind) =>
  queryOptions({
    queryKey: [...dictionariesKey, 'versions', kind],
    queryFn: () => dictionariesApi.versions(kind),
  });

export const termsQuery = (
  dictionaryId: number | null,
  f: TermFilters,
  pageNumber: number,
  pageSize: number,
) =>
  queryOptions({
    queryKey: [...dictionariesKey, 'terms', dictionaryId, f, pageNumber, pageSize],
    queryFn: () => dictionariesApi.terms(dictionaryId!, f, pageNumber, pageSize),
    placeholderData: keepPreviousData,
    enabled: dictionaryId !== null,
  });

export const searchQuery = (route: SearchRoute, kind: DictionaryKind, text: string) =>
  queryOptions({
    queryKey: [...dictionariesKey, 'search', route, kind, text],
    queryFn: ({ signal }) => dictionariesApi.search(route, kind, text, 20, signal),
    enabled: text.length > 0,
    staleTime: 60_000,
  });

export function afterDictionaryChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: dictionariesKey });
}
