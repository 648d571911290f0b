import { queryOptions } from '@tanstack/react-query';
import type { AdminInfo, HostKey, HostsView } from '@esource/shared';
import { api } from '../../../lib/api-client';

export const settingsApi = {
  hosts: () => api.get<HostsView>('/sys/config/hosts'),
  saveHosts: (hosts: Partial<Record<HostKey, string>>, lockVersion: number) =>
    api.post<HostsView>('/sys/config/update', { hosts, lockVersion }, { json: true }),
  adminInfo: () => api.post<AdminInfo>('/admin/info/detail', {}, { silent: true }),
  saveAdminInfo: (v: Omit<AdminInfo, 'lockVersion' | 'updateTime'>, lockVersion: number) =>
    api.post<AdminInfo>('/admin/info/update', { ...v, lockVersion }, { json: true }),
};

export const hostsQuery = () => queryOptions({ queryKey: ['settings', 'hosts'], queryFn: settingsApi.hosts });
/** The administrator's contact: public, shown on the login and no-permission pages too. */
export const adminInfoQuery = () =>
  queryOptions({ queryKey: ['settings', 'adminInfo'], queryFn: settingsApi.adminInfo, staleTime: 60_000, retry: false });
