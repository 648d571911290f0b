import { queryOptions } from '@tanstack/react-query';
import type { DeptRow, OrgRow } from '@esource/shared';
import { api } from '../../../lib/api-client';

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalCount: number;
  content: T[];
}

export interface OrgInput {
  name: string;
  code?: string;
  address?: string;
}

export const orgsApi = {
  page: (p: { pageNumber: number; pageSize: number; keyword?: string }) => api.post<Page<OrgRow>>('/org/info/page', p),
  add: (o: OrgInput) => api.post<OrgRow>('/org/info/add', { ...o }),
  update: (o: OrgInput & { id: number }) => api.post<OrgRow>('/org/info/update', { ...o }),
  remove: (id: number) => api.post<null>('/org/info/delete', { id }),
  depts: (orgId: number) => api.get<DeptRow[]>('/org/dept/list', { orgId }),
  addDept: (orgId: number, name: string, code?: string) => api.post<DeptRow>('/org/dept/add', { orgId, name, code }),
  updateDept: (id: number, name: string, code?: string) => api.post<DeptRow>('/org/dept/update', { id, name, code }),
  removeDept: (id: number) => api.post<null>('/org/dept/delete', { id }),
};

export const orgsPageQuery = (p: { pageNumber: number; pageSize: number; keyword?: string }) =>
  queryOptions({ queryKey: ['orgs', 'page', p], queryFn: () => orgsApi.page(p), placeholderData: (prev) => prev });

export const deptsQuery = (orgId: number | null) =>
  queryOptions({ queryKey: ['orgs', 'depts', orgId], queryFn: () => orgsApi.depts(orgId!), enabled: orgId !== null });
