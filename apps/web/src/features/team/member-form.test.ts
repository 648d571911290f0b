import { describe, expect, it } from 'vitest';
import type { MemberRow } from '@esource/shared';
import { memberAssignment, memberFormValues } from './member-form';
import { filterParams } from './api/team-api';

const M: MemberRow = {
  id: 4,
  userId: 9,
  account: 'crc1',
  name: 'Amy',
  orgName: null,
  roleId: 3,
  roleCode: 'CRC',
  roleName: 'CRC',
  allSites: false,
  sites: [{ id: 11, siteNo: 'S01', name: 'A' }],
  status: 1,
  createTime: '',
};

describe('member dialog → API', () => {
  it('all sites sends no list; chosen sites are sent once each', () => {
    expect(memberAssignment({ roleId: 2, scope: 'all', siteIds: [1, 2] })).toEqual({
      roleId: 2,
      allSites: true,
      siteIds: [],
    });
    expect(memberAssignment({ roleId: 2, scope: 'chosen', siteIds: [5, 5, 6] })).toEqual({
      roleId: 2,
      allSites: false,
      siteIds: [5, 6],
    });
  });

  it('opens a member with their role and sites', () => {
    expect(memberFormValues(M)).toMatchObject({ roleId: 3, scope: 'chosen', siteIds: [11] });
    expect(memberFormValues({ ...M, allSites: true }).scope).toBe('all');
    expect(memberFormValues(undefined)).toEqual({ scope: 'chosen', siteIds: [] });
  });

  it('filters leave empty ones out (the export uses the same)', () => {
    expect(filterParams({ keyword: '' })).toEqual({
      keyword: undefined,
      roleId: undefined,
      siteId: undefined,
      status: undefined,
    });
    expect(filterParams({ keyword: 'amy', status: 0 })).toMatchObject({ keyword: 'amy', status: 0 });
  });
});
