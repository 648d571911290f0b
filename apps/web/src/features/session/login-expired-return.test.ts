import { describe, expect, it } from 'vitest';
import { decideGuard } from '../../lib/routing/guard';
import { returnTarget } from './login-expired-dialog';

describe('coming back after the Login Expired dialog', () => {
  it('keeps path and query, adds the open project and its environment', () => {
    expect(returnTarget('/project/centerList', '?pageNumber=2', 7, 'UAT')).toBe('/project/centerList?pageNumber=2&proId=7&proType=UAT');
    expect(returnTarget('/system/userSys', '?tab=roles', null, 'PRO')).toBe('/system/userSys?tab=roles');
    expect(returnTarget('/overview', '', null, 'PRO')).toBeNull();
    expect(returnTarget('/user-info', '?token=x', null, 'PRO')).toBe('/user-info');
  });

  it('the guard re-enters the project in that environment and strips the parameters', () => {
    const d = decideGuard('/project/centerList', '?pageNumber=2&proId=7&proType=UAT', {
      token: 't',
      variant: 'main',
      loginProduct: 'esource',
      access: null,
      projectId: null,
      moduleNo: 1,
      listPage: null,
    });
    expect(d).toMatchObject({
      kind: 'redirect',
      to: '/project/centerList?pageNumber=2',
      actions: expect.arrayContaining([{ type: 'enterProject', proId: 7, env: 'UAT' }]) as unknown,
    });
  });
});
