import { queryOptions } from '@tanstack/react-query';
import type { CenterApplyRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface ApplyListParams {
  status: number;
  pageNumber: number;
  pageSize: number;
  keyword?: string | undefined;
}

export const centerApplyApi = {
  page: (p: ApplyListParams) => api.post<Page<CenterApplyRow>>('/centerApply/page', { ...p }),
  apply: (projectNo: string, note?: string) => api.post<CenterApplyRow>('/centerApply/apply', { projectNo, note }),
  review: (id: number, pass: boolean, reason: string, siteNo?: string) =>
    api.post<CenterApplyRow>('/centerApply/audit', { id, pass, reason, siteNo }),
};

export const applyPageQuery = (p: ApplyListParams) =>
  queryOptions({ queryKey: ['centerApply', p], queryFn: () => centerApplyApi.page(p), placeholderData: (prev) => prev });
