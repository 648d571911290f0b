import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  DeidKeywordImportResult,
  DeidKeywordPage,
  DeidKeywordRow,
  DeidPolicyFlags,
  DeidPolicyView,
  DeidTestResult,
  OcrToolResult,
} from '@esource/shared';
import { api } from '../../../lib/api-client';

type Scope = { env: string; projectId: number | null };

/** Every key of this feature starts here: one invalidation refreshes the keyword list and the policy after a change. */
export const deidConfigKey = ['deidConfig'] as const;

const BASE = '/project/desensitization';

/** POST /project/desensitization/keyword/list: a page of the open project's keywords, filtered by text. */
export const keywordsQuery = (s: Scope, keyword: string, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: [...deidConfigKey, 'keywords', s.env, s.projectId, keyword, pageNumber, pageSize],
    queryFn: () =>
      api.post<DeidKeywordPage>(
        `${BASE}/keyword/list`,
        { ...(keyword ? { keyword } : {}), pageNumber, pageSize },
        { silent: true },
      ),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

/** GET /project/desensitization/policy: version 0 = never saved (the defaults). */
export const policyQuery = (s: Scope) =>
  queryOptions({
    queryKey: [...deidConfigKey, 'policy', s.env, s.projectId],
    queryFn: () => api.get<DeidPolicyView>(`${BASE}/policy`, undefined, { silent: true }),
    enabled: s.projectId !== null,
  });

/** The calls of the desensitization configuration screen (server: apps/server/src/modules/deid-config). */
export const deidConfigApi = {
  addKeyword: (keyword: string, note?: string) =>
    api.postJson<DeidKeywordRow>(
      `${BASE}/keyword/add`,
      { keyword, ...(note ? { note } : {}) },
      { silent: true },
    ),
  deleteKeyword: (id: number) => api.post<{ id: number }>(`${BASE}/keyword/delete`, { id }, { silent: true }),
  importKeywords: (text: string) =>
    api.postJson<DeidKeywordImportResult>(`${BASE}/keyword/import`, { text }, { silent: true }),
  savePolicy: (flags: DeidPolicyFlags, version: number) =>
    api.postJson<DeidPolicyView>(`${BASE}/policy/save`, { ...flags, version }, { silent: true }),
  test: (text: string) => api.postJson<DeidTestResult>(`${BASE}/test`, { text }, { silent: true }),
  /** POST /tool/ocrTools: one image read and boxed with the saved settings; nothing stored */
  tryImage: (file: File) => {
    const fd = new FormData();
    fd.append('files', file, file.name);
    return api.post<OcrToolResult>('/tool/ocrTools', undefined, { multipart: fd, silent: true });
  },
};

/** After a change: the list, its counts and the policy are read again. */
export function afterDeidConfigChange(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: deidConfigKey });
}
