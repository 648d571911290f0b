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

/** Which trail a view shows: the system one (module 6), the login log, or the open project's. */
export interface AuditSource {
  key: 'system' | 'login' | 'project';
  listPath: string;
  exportPath: string;
}

export const AUDIT_SOURCES: Record<AuditSource['key'], AuditSource> = {
  system: { key: 'system', listPath: '/audit/log/v1/listByPage', exportPath: '/audit/log/v1/export' },
  login: { key: 'login', listPath: '/audit/log/login/page', exportPath: '/audit/log/login/export' },
  project: { key: 'project', listPath: '/project/auditLogs/listByPage', exportPath: '/project/auditLogs/export' },
};

export const auditApi = {
  page: (src: AuditSource, p: AuditFilters & { pageNumber: number; pageSize: number }) =>
    api.post<Page<AuditLogRow>>(src.listPath, { ...p }),
  export: (src: AuditSource, f: AuditFilters) => api.get<Blob>(src.exportPath, { ...f }, { raw: true }),
  /** silent: a user without the system-scope permission still sees the trail, without the event choices */
  users: (keyword: string) =>
    api.get<UserPickerRow[]>('/auth/user/listByKeyWords', { keyword: keyword || undefined, limit: 20 }, { silent: true }),
  events: () => api.get<{ value: string; label: string }[]>('/audit/log/eventNameList', undefined, { silent: true }),
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

export const auditEventsQuery = (lang: string, enabled: boolean) =>
  queryOptions({
    queryKey: ['audit', 'events', lang],
    queryFn: auditApi.events,
    enabled,
    retry: false,
    staleTime: 60_000,
  });

export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
