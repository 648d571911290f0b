import { describe, expect, it } from 'vitest';
import { decideGuard, type GuardState } from './guard';

const allPms = new Set(['project:info:query', 'patient:page:query', 'system:user:query']);
const base: GuardState = {
  token: 'tok',
  variant: 'main',
  loginProduct: 'esource',
  access: { pms: allPms, loginType: 1, env: 'PRO' },
  projectId: 7,
  moduleNo: 1,
  listPage: null,
};

describe('route guard (spec §2)', () => {
  it('lets static routes through without a token', () => {
    for (const p of ['/privacy', '/site/privacy', '/agreement', '/person', '/404', '/s/x1']) {
      expect(decideGuard(p, '', { ...base, token: null }).kind, p).toBe('render');
    }
  });

  it('sends a user without a token to the login path of their site, remembering the target', () => {
    expect(decideGuard('/overview', '', { ...base, token: null })).toMatchObject({
      kind: 'redirect',
      to: '/login?redirect=%2Foverview',
    });
    expect(decideGuard('/overview', '', { ...base, token: null, variant: 'site' })).toMatchObject({
      to: '/site/login?redirect=%2Foverview',
    });
    expect(decideGuard('/', '', { ...base, token: null, variant: 'ae' })).toMatchObject({ to: '/ae/login' });
  });

  it('logs in with a token in the query (with target and env) and strips it', () => {
    const d = decideGuard('/overview', '?token=abc&env=uat&target=%2Fuser-info', { ...base, token: null });
    expect(d).toEqual({
      kind: 'redirect',
      to: '/user-info',
      actions: [{ type: 'tokenLogin', token: 'abc', env: 'UAT' }],
    });
    const d2 = decideGuard('/overview', '?token=abc&x=1', { ...base, token: null });
    expect(d2).toMatchObject({ kind: 'redirect', to: '/overview?x=1' });
    expect(d2.actions[0]).toEqual({ type: 'tokenLogin', token: 'abc', env: null });
  });

  it('refuses an open redirect as target', () => {
    const d = decideGuard('/overview', '?token=abc&target=%2F%2Fevil.example', { ...base, token: null });
    expect(d).toMatchObject({ kind: 'redirect', to: '/overview' });
  });

  it('enters the project of proId on a /project path and strips token and proId', () => {
    const d = decideGuard('/project/centerPtsList', '?proId=42&token=tok&pageNumber=3', base);
    expect(d.kind).toBe('redirect');
    if (d.kind !== 'redirect') return;
    expect(d.to).toBe('/project/centerPtsList?pageNumber=3');
    expect(d.actions).toContainEqual({ type: 'enterProject', proId: 42 });
    expect(d.actions).toContainEqual({ type: 'listPage', page: 3 });
  });

  it('enters a project by uuid', () => {
    const d = decideGuard('/project/ProjectManage', '?uuid=u-1', { ...base, projectId: null });
    expect(d).toMatchObject({ kind: 'redirect', to: '/project/ProjectManage' });
    expect(d.actions).toContainEqual({ type: 'enterProjectByUuid', uuid: 'u-1' });
    // while the uuid resolves, the page waits instead of bouncing to the overview
    expect(
      decideGuard('/project/ProjectManage', '', { ...base, projectId: null, projectPending: true }).kind,
    ).toBe('loading');
  });

  it('sends the login route to / when logged in', () => {
    expect(decideGuard('/login', '', base)).toMatchObject({ kind: 'redirect', to: '/' });
    expect(decideGuard('/site/login', '', base)).toMatchObject({ kind: 'redirect', to: '/' });
    expect(decideGuard('/login', '', { ...base, token: null }).kind).toBe('render');
  });

  it('clears the project and resets the module on the All route, except for eVisit', () => {
    expect(decideGuard('/overview', '', base).actions).toEqual([{ type: 'clearProject' }]);
    expect(decideGuard('/overview', '', { ...base, projectId: null, moduleNo: 2 }).actions).toEqual([
      { type: 'clearProject' },
    ]);
    expect(decideGuard('/overview', '', { ...base, projectId: null }).actions).toEqual([]);
    expect(decideGuard('/overview', '', { ...base, loginProduct: 'evisit' }).actions).toEqual([]);
  });

  it('sends unknown paths to /404', () => {
    expect(decideGuard('/no/such/page', '', base)).toEqual({ kind: 'redirect', to: '/404', actions: [] });
  });

  it('keeps pageNumber as the list page without rewriting the URL', () => {
    const d = decideGuard('/project/centerPtsList', '?pageNumber=4', base);
    expect(d.kind).toBe('render');
    expect(d.actions).toEqual([{ type: 'listPage', page: 4 }]);
  });

  it('filters routes by pms', () => {
    expect(decideGuard('/project/doubtList', '', base).kind).toBe('forbidden');
    expect(decideGuard('/system/userSys', '', base).kind).toBe('render');
    expect(decideGuard('/project/centerPtsList', '', { ...base, access: null }).kind).toBe('loading');
  });

  it('sends a /project page without a current project to the overview', () => {
    expect(decideGuard('/project/centerPtsList', '', { ...base, projectId: null })).toMatchObject({
      kind: 'redirect',
      to: '/overview',
    });
  });

  it('follows redirect routes', () => {
    expect(decideGuard('/', '', base)).toMatchObject({ kind: 'redirect', to: '/overview' });
    expect(decideGuard('/centerApply', '', base)).toMatchObject({
      kind: 'redirect',
      to: '/system/centerApply',
    });
  });

  it('holds the screen while the Login Expired dialog is open', () => {
    expect(decideGuard('/overview', '', { ...base, token: null, expired: true }).kind).toBe('loading');
  });
});
