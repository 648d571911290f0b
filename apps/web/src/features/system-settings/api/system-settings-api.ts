import { queryOptions } from '@tanstack/react-query';
import type { AdminInfo, HostKey, HostsView, RangeOption, RangeOrg } from '@esource/shared';
import { api } from '../../../lib/api-client';

export const settingsApi = {
  hosts: () => api.get<HostsView>('/sys/config/hosts'),
  saveHosts: (hosts: Partial<Record<HostKey, string>>, lockVersion: number) =>
    api.post<HostsView>('/sys/config/update', { hosts, lockVersion }, { json: true }),
  adminInfo: () => api.post<AdminInfo>('/admin/info/detail', {}, { silent: true }),
  /** enabled organisations for pickers (any user manager, without the organisation dictionary's permission) */
  rangeOrgs: () => api.get<RangeOrg[]>('/sys/range/listOrg'),
  /** a project membership's data ranges, translated */
  ranges: () => api.get<RangeOption[]>('/sys/range/listRange'),
  saveAdminInfo: (v: Omit<AdminInfo, 'lockVersion' | 'updateTime'>, lockVersion: number) =>
    api.post<AdminInfo>('/admin/info/update', { ...v, lockVersion }, { json: true }),
};

export const hostsQuery = () => queryOptions({ queryKey: ['settings', 'hosts'], queryFn: settingsApi.hosts });
/** The administrator's contact: public, shown on the login and no-permission pages too. */
export const adminInfoQuery = () =>
  queryOptions({
    queryKey: ['settings', 'adminInfo'],
    queryFn: settingsApi.adminInfo,
    staleTime: 60_000,
    retry: false,
  });

/** Organisations a user may belong to (GET /sys/range/listOrg). */
export const rangeOrgsQuery = () =>
  queryOptions({ queryKey: ['ranges', 'orgs'], queryFn: settingsApi.rangeOrgs, staleTime: 60_000 });
/** The data ranges of a project membership, in the session's language (GET /sys/range/listRange). */
export const rangesQuery = (language: string) =>
  queryOptions({
    queryKey: ['ranges', 'ranges', language],
    queryFn: settingsApi.ranges,
    staleTime: 10 * 60_000,
  });
