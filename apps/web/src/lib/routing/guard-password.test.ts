import { describe, expect, it } from 'vitest';
import { decideGuard, type GuardState } from './guard';

const base: GuardState = {
  token: 'tok',
  variant: 'site',
  loginProduct: 'esource',
  access: { pms: new Set(['project:info:query', 'patient:page:query']), loginType: 3, env: 'PRO' },
  projectId: null,
  moduleNo: 1,
  listPage: null,
  mustChangePassword: true,
};

describe('route guard: an initial password is changed first', () => {
  it('sends every page to the change screen, remembering where the user was going', () => {
    expect(decideGuard('/', '', base)).toMatchObject({ kind: 'redirect', to: '/change-password' });
    expect(decideGuard('/overview', '', base)).toMatchObject({ kind: 'redirect', to: '/change-password' });
    expect(decideGuard('/user-info', '?a=1', base)).toMatchObject({
      kind: 'redirect',
      to: `/change-password?redirect=${encodeURIComponent('/user-info?a=1')}`,
    });
    expect(decideGuard('/messages', '', base)).toMatchObject({ kind: 'redirect', to: '/change-password?redirect=%2Fmessages' });
  });

  it('renders the change screen, and leaves it for the target once the password is changed', () => {
    expect(decideGuard('/change-password', '', base).kind).toBe('render');
    const done = { ...base, mustChangePassword: false };
    expect(decideGuard('/change-password', '?redirect=%2Fuser-info', done)).toMatchObject({ kind: 'redirect', to: '/user-info' });
    expect(decideGuard('/change-password', '?redirect=%2F%2Fevil.example', done)).toMatchObject({ to: '/' });
  });

  it('still lets static pages and the logged-out login page through', () => {
    expect(decideGuard('/privacy', '', base).kind).toBe('render');
    expect(decideGuard('/site/login', '', { ...base, token: null }).kind).toBe('render');
  });
});

describe('route guard: the login page with a token', () => {
  it('goes where the login was asked from (the login page navigates there too)', () => {
    const s = { ...base, mustChangePassword: false };
    expect(decideGuard('/login', '?redirect=%2Fproject%2FcenterList%3FproId%3D1', s)).toMatchObject({
      kind: 'redirect',
      to: '/project/centerList?proId=1',
    });
    expect(decideGuard('/login', '?redirect=https%3A%2F%2Fevil.example', s)).toMatchObject({ to: '/' });
    expect(decideGuard('/login', '', s)).toMatchObject({ to: '/' });
  });
});
