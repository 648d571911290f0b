import { queryOptions } from '@tanstack/react-query';
import type { AuditLogRow, UserPickerRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface AuditFilters {
  action?: string;
  userId?: number;
  startTime?: string;
  endTime?: string;
}

/**
 * Which trail a view shows: the system one (module 6), the login log, the authorisation log, or the open project's. Each names where its
 * filter choices come from: the system page asks system-scope routes (the whole trail, the user directory); the
 * project page asks the project's own (its events and the people in its trail), which a monitor may read.
 */
export interface AuditSource {
  key: 'system' | 'login' | 'auth' | 'project';
  listPath: string;
  exportPath: string;
  /** event filter choices; null: the view has no event filter */
  eventsPath: string | null;
  usersPath: string;
}

export const AUDIT_SOURCES: Record<AuditSource['key'], AuditSource> = {
  system: {
    key: 'system',
    listPath: '/audit/log/v1/listByPage',
    exportPath: '/audit/log/v1/export',
    eventsPath: '/audit/log/eventNameList',
    usersPath: '/auth/user/listByKeyWords',
  },
  login: {
    key: 'login',
    listPath: '/audit/log/login/page',
    exportPath: '/audit/log/login/export',
    eventsPath: '/audit/log/login/eventNameList',
    usersPath: '/auth/user/listByKeyWords',
  },
  // the authorisation log: changes of roles, permissions, permission groups and memberships
  auth: {
    key: 'auth',
    listPath: '/auth/log/page',
    exportPath: '/auth/log/exportExcel',
    eventsPath: '/auth/log/eventNameList',
    usersPath: '/auth/user/listByKeyWords',
  },
  project: {
    key: 'project',
    listPath: '/project/auditLogs/listByPage',
    exportPath: '/project/auditLogs/export',
    eventsPath: '/project/auditLogs/eventNameList',
    usersPath: '/project/auditLogs/userList',
  },
};

export const auditApi = {
  page: (src: AuditSource, p: AuditFilters & { pageNumber: number; pageSize: number }) =>
    api.post<Page<AuditLogRow>>(src.listPath, { ...p }),
  export: (src: AuditSource, f: AuditFilters) => api.get<Blob>(src.exportPath, { ...f }, { raw: true }),
  /** silent: a user without the permission behind the choices still sees the trail, without the choices */
  users: (src: AuditSource, keyword: string) =>
    api.get<UserPickerRow[]>(src.usersPath, { keyword: keyword || undefined, limit: 20 }, { silent: true }),
  events: (path: string) => api.get<{ value: string; label: string }[]>(path, undefined, { silent: true }),
};

export const auditPageQuery = (
  src: AuditSource,
  p: AuditFilters & { pageNumber: number; pageSize: number },
  scope: string,
) =>
  queryOptions({
    queryKey: ['audit', src.key, scope, p],
    queryFn: () => auditApi.page(src, p),
    placeholderData: (prev) => prev,
  });

/** The event filter's choices; `scope` (project and environment) is part of the key: each trail has its own. */
export const auditEventsQuery = (src: AuditSource, scope: string, lang: string) =>
  queryOptions({
    queryKey: ['audit', 'events', src.key, scope, lang],
    queryFn: () => auditApi.events(src.eventsPath ?? ''),
    enabled: src.eventsPath !== null,
    retry: false,
    staleTime: 60_000,
  });

export const auditUsersQuery = (src: AuditSource, scope: string, keyword: string, enabled: boolean) =>
  queryOptions({
    queryKey: ['audit', 'users', src.usersPath, scope, keyword],
    queryFn: () => auditApi.users(src, keyword),
    enabled,
    retry: false,
    staleTime: 10_000,
  });

export { saveBlob } from '../../../lib/download';
