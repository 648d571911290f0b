import { queryOptions } from '@tanstack/react-query';
import { LIMITS } from '@esource/shared';
import { api } from '../../../lib/api-client';

export interface ProjectRow {
  id: number;
  no: string;
  name: string;
  status: number;
  scene: number | null;
  role?: string | null;
  siteCount?: number | null;
  subjectCount?: number | null;
  updateTime?: string | null;
}
export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

/** POST /pro/info/page: projects the user is a member of in the current environment (spec §7). */
export const projectsPageQuery = (p: {
  pageNumber: number;
  pageSize: number;
  keyword: string;
  env: string;
  token: string | null;
}) =>
  queryOptions({
    queryKey: ['projects', p.env, p.token, p.pageNumber, p.pageSize, p.keyword],
    queryFn: () =>
      api.post<Page<ProjectRow>>('/pro/info/page', {
        pageNumber: p.pageNumber,
        pageSize: p.pageSize,
        keyword: p.keyword || undefined,
      }),
  });

export const DEFAULT_PAGE = { pageNumber: LIMITS.firstPage, pageSize: LIMITS.defaultPageSize };
