import { queryOptions } from '@tanstack/react-query';
import type { PermissionGroupRow, RoleRow, UserPickerRow } from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface RoleInput {
  code: string;
  name: string;
  nameEn?: string;
  description?: string;
  kind: 'system' | 'project';
  isDm: boolean;
  envDev: boolean;
  envUat: boolean;
  envPro: boolean;
  permissions: string[];
}

export interface LoginWindowDto {
  days: number[];
  start: string;
  end: string;
}

export interface GroupInput {
  name: string;
  description?: string;
  timezone: string;
  reviewerUserId?: number;
  loginWindows: LoginWindowDto[];
}

export const rolesApi = {
  page: (p: { pageNumber: number; pageSize: number; keyword?: string; kind?: string }) =>
    api.post<Page<RoleRow>>('/sys/role/page', p),
  add: (r: RoleInput) => api.post<RoleRow>('/sys/role/add', r as unknown as ApiData),
  update: (r: RoleInput & { id: number }) => api.post<RoleRow>('/sys/role/update', r as unknown as ApiData),
  remove: (id: number) => api.post<null>('/sys/role/delete', { id }),
  groups: () => api.post<PermissionGroupRow[]>('/sys/permissionGroup/list', {}),
  addGroup: (g: GroupInput) => api.postJson<PermissionGroupRow>('/sys/permissionGroup/add', g as unknown as ApiData),
  updateGroup: (g: GroupInput & { id: number }) =>
    api.postJson<PermissionGroupRow>('/sys/permissionGroup/update', g as unknown as ApiData),
  removeGroup: (id: number) => api.post<null>('/sys/permissionGroup/delete', { id }),
  pickUsers: (keyword: string) =>
    api.get<UserPickerRow[]>('/auth/user/listByKeyWords', { keyword: keyword || undefined, limit: 20 }),
};

export const rolesPageQuery = (p: { pageNumber: number; pageSize: number; keyword?: string; kind?: string }) =>
  queryOptions({
    queryKey: ['roles', 'page', p],
    queryFn: () => rolesApi.page(p),
    placeholderData: (prev) => prev,
  });

export const groupsQuery = () => queryOptions({ queryKey: ['roles', 'groups'], queryFn: rolesApi.groups });
