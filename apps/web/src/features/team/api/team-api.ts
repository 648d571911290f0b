import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { MemberRow, SiteDetailRow } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';
import type { MemberAssignment } from '../member-form';

interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface TeamFilters {
  keyword: string;
  roleId?: number;
  siteId?: number;
  status?: number;
}

export interface RoleOption {
  id: number;
  code: string;
  name: string;
  nameEn: string | null;
  isDm: boolean;
}

export interface Candidate {
  id: number;
  account: string;
  name: string;
  orgName: string | null;
}

/** Filters as the server reads them (empty ones left out); the page and the Excel export share them. */
export function filterParams(f: TeamFilters): ApiData {
  return { keyword: f.keyword || undefined, roleId: f.roleId, siteId: f.siteId, status: f.status };
}

type Scope = { env: string; projectId: number | null };

/** POST /pro/user/page: team members in this environment. */
export const teamPageQuery = (s: Scope, f: TeamFilters, pageNumber: number, pageSize: number) =>
  queryOptions({
    queryKey: ['team', 'page', s.env, s.projectId, f, pageNumber, pageSize],
    queryFn: () => api.post<Page<MemberRow>>('/pro/user/page', { ...filterParams(f), pageNumber, pageSize }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

/** GET /sys/role/projectOptions: project roles that may act in this environment (DEV: data managers only). */
export const roleOptionsQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['team', 'roles', s.env, s.projectId],
    queryFn: () => api.get<RoleOption[]>('/sys/role/projectOptions'),
    enabled: s.projectId !== null,
  });

/** POST /pro/site/list: the sites a member can be limited to. */
export const teamSitesQuery = (s: Scope) =>
  queryOptions({
    queryKey: ['sites', s.env, s.projectId],
    queryFn: () => api.post<SiteDetailRow[]>('/pro/site/list'),
    enabled: s.projectId !== null,
  });

/** GET /pro/user/candidates: enabled users who are not members yet. */
export const candidatesQuery = (s: Scope, keyword: string) =>
  queryOptions({
    queryKey: ['team', 'candidates', s.env, s.projectId, keyword],
    queryFn: () => api.get<Candidate[]>('/pro/user/candidates', { keyword, limit: 20 }),
    enabled: s.projectId !== null,
    placeholderData: keepPreviousData,
  });

export const teamApi = {
  add: (b: MemberAssignment & { userId: number }) =>
    api.post<MemberRow>('/pro/user/add', { ...b }, { silent: true }),
  invite: (b: MemberAssignment & { account: string }) =>
    api.post<MemberRow>('/pro/user/invite', { ...b }, { silent: true }),
  update: (b: MemberAssignment & { id: number }) =>
    api.post<MemberRow>('/pro/user/update', { ...b }, { silent: true }),
  setStatus: (id: number, status: 0 | 1) => api.post<MemberRow>('/pro/user/updateStatus', { id, status }),
  message: (memberIds: number[], title: string, content: string) =>
    api.post<{ sent: number }>('/pro/user/sendMessage', { memberIds, title, content }, { silent: true }),
  exportExcel: (f: TeamFilters) => api.get<Blob>('/pro/user/export', filterParams(f), { raw: true }),
};
