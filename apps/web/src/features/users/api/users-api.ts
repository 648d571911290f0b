import { queryOptions } from '@tanstack/react-query';
import type {
  DeptRow,
  PermissionGroupRow,
  RoleRow,
  UserAddResponse,
  UserDetail,
  UserImportResponse,
  UserListRow,
  UserPickerRow,
} from '@esource/shared';
import { api, type ApiData } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

/** Filters of the user list; the export takes the same ones. */
export interface UserListFilters {
  keyword?: string;
  status?: number;
  orgId?: number;
  loginType?: number;
  sortField?: string;
  sortOrder?: 'asc' | 'desc';
}

/** What the add / edit dialog sends (spec §5 field rules are checked by the form and again by the server). */
export interface UserInput {
  account?: string;
  name: string;
  phone: string;
  mail?: string;
  idNumber?: string;
  orgId: number;
  deptId?: number;
  loginTypes: number[];
  systemRoleId?: number;
  permissionGroupId?: number;
}

/** The browser's time zone: times are shown, and exported, in the viewer's zone (DESIGN §10). */
export const viewerTimeZone = (): string =>
  Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai';

export const usersApi = {
  list: (p: UserListFilters & { pageNumber: number; pageSize: number }) =>
    api.get<Page<UserListRow>>('/auth/user/list', { ...p }),
  detail: (id: number) => api.get<UserDetail>('/user/detail', { id }),
  add: (u: UserInput) => api.post<UserAddResponse>('/system/user/add', u as unknown as ApiData),
  update: (u: UserInput & { id: number; updateTime?: string }) =>
    api.post<UserDetail>('/system/user/update', u as unknown as ApiData),
  setStatus: (id: number, status: 0 | 1, reason: string) =>
    api.post<{ id: number; status: number; endedSessions: number }>('/system/user/status/update', {
      id,
      status,
      reason,
    }),
  invite: (id: number) => api.post<UserAddResponse>('/system/user/invite', { id }),
  sendMessage: (userIds: number[], title: string, content: string) =>
    api.post<{ sent: number }>('/system/user/sendMessage', { userIds, title, content }),
  template: () => api.get<Blob>('/templates/downloadTemplate', { type: 'user' }, { raw: true }),
  /** silent: the dialog lists every bad row and field itself */
  importExcel: (file: File) => {
    const fd = new FormData();
    fd.append('file', file);
    return api.post<UserImportResponse>('/user/importExcel', undefined, { multipart: fd, silent: true });
  },
  export: (f: UserListFilters) =>
    api.get<Blob>('/system/user/export', { ...f, timeZone: viewerTimeZone() }, { raw: true }),
  picker: (keyword: string) => api.get<UserPickerRow[]>('/auth/user/listByKeyWords', { keyword, limit: 20 }),
};

export const usersListQuery = (p: UserListFilters & { pageNumber: number; pageSize: number; lang: string }) =>
  queryOptions({
    queryKey: ['users', 'list', p],
    queryFn: () => {
      const { lang: _lang, ...rest } = p;
      return usersApi.list(rest);
    },
    placeholderData: (prev) => prev,
  });

export const userDetailQuery = (id: number | null) =>
  queryOptions({
    queryKey: ['users', 'detail', id],
    queryFn: () => usersApi.detail(id!),
    enabled: id !== null,
  });

/** Choices for the user form: departments, system roles, permission groups (organisations: rangeOrgsQuery). */
export const deptOptionsQuery = (orgId: number | undefined) =>
  queryOptions({
    queryKey: ['users', 'deptOptions', orgId],
    queryFn: () => api.get<DeptRow[]>('/org/dept/list', { orgId }),
    enabled: orgId !== undefined,
    staleTime: 30_000,
  });

export const systemRoleOptionsQuery = (enabled: boolean) =>
  queryOptions({
    queryKey: ['users', 'systemRoles'],
    queryFn: () =>
      api.post<Page<RoleRow>>(
        '/sys/role/page',
        { pageNumber: 1, pageSize: 200, kind: 'system' },
        { silent: true },
      ),
    enabled,
    staleTime: 30_000,
  });

export const groupOptionsQuery = (enabled: boolean) =>
  queryOptions({
    queryKey: ['users', 'groups'],
    queryFn: () => api.post<PermissionGroupRow[]>('/sys/permissionGroup/list', {}, { silent: true }),
    enabled,
    staleTime: 30_000,
  });

export { saveBlob } from '../../../lib/download';

/** yyyymmdd-hhmm in local time, for download names */
export function fileStamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}`;
}
