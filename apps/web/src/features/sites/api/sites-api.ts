import { queryOptions } from '@tanstack/react-query';
import type { MemberRow, SiteDetailRow, SiteSchedule } from '@esource/shared';
import { api } from '../../../lib/api-client';

interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface SiteBody {
  orgId?: number;
  siteNo: string;
  name?: string;
  piUserId?: number;
  status?: number;
}

/** POST /pro/site/list: the open project's sites in the current environment that the caller may see. */
export const sitesQuery = (env: string, projectId: number | null) =>
  queryOptions({
    queryKey: ['sites', env, projectId],
    queryFn: () => api.post<SiteDetailRow[]>('/pro/site/list'),
    enabled: projectId !== null,
  });

/**
 * GET /pro/site/schedule/get: one site's visit schedule in the current environment. The route is site-scoped (the
 * site travels in the proSiteId header); the sites page names the site of the row, not the session's current site.
 */
export const siteScheduleQuery = (env: string, projectId: number | null, siteId: number | null) =>
  queryOptions({
    queryKey: ['sites', 'schedule', env, projectId, siteId],
    queryFn: () =>
      api.get<SiteSchedule>('/pro/site/schedule/get', undefined, {
        headers: siteId !== null ? { proSiteId: siteId } : {},
        silent: true,
      }),
    enabled: projectId !== null && siteId !== null,
    retry: false,
  });

/** Enabled team members of this environment: who may be principal investigator. */
export const piCandidatesQuery = (env: string, projectId: number | null, enabled: boolean) =>
  queryOptions({
    queryKey: ['sites', 'pi-candidates', env, projectId],
    queryFn: () => api.post<Page<MemberRow>>('/pro/user/page', { pageNumber: 1, pageSize: 200, status: 1 }),
    enabled: enabled && projectId !== null,
  });

export const sitesApi = {
  add: (b: SiteBody) => api.post<SiteDetailRow>('/pro/site/add', { ...b }, { silent: true }),
  update: (b: SiteBody & { id: number }) =>
    api.post<SiteDetailRow>('/pro/site/update', { ...b }, { silent: true }),
};
