import { ENVS, LOGIN_VARIANTS, type Env, type LoginVariant } from '@esource/shared';
import { matchRoute, routeAllowed, type AccessContext } from './route-access';
import type { AppRoute } from './route-types';

/** What the guard knows about the session when it decides (spec §2 route guard). */
export interface GuardState {
  token: string | null;
  variant: LoginVariant;
  /** 'evisit' drops the All route's project reset */
  loginProduct: string;
  /** null while user info (pms) is loading */
  access: AccessContext | null;
  projectId: number | null;
  /** a project is being resolved from a uuid */
  projectPending?: boolean;
  /** the Login Expired dialog is open: hold the screen, redirect nowhere */
  expired?: boolean;
  moduleNo: number;
  listPage: number | null;
  /** an initial password must be changed first: every page but the change screen goes there */
  mustChangePassword?: boolean;
}

export type GuardAction =
  | { type: 'tokenLogin'; token: string; env: Env | null }
  | { type: 'enterProject'; proId: number; env?: Env }
  | { type: 'enterProjectByUuid'; uuid: string }
  | { type: 'clearProject' }
  | { type: 'listPage'; page: number };

export type GuardDecision =
  | { kind: 'redirect'; to: string; actions: GuardAction[] }
  | { kind: 'render'; route: AppRoute; actions: GuardAction[] }
  | { kind: 'loading'; route: AppRoute; actions: GuardAction[] }
  | { kind: 'forbidden'; route: AppRoute; actions: GuardAction[] };

/** The forced change-password screen (an initial password). */
export const PASSWORD_CHANGE_PATH = '/change-password';

/** Query parameters the guard consumes and strips from the URL afterwards. */
const STRIPPED = ['token', 'target', 'env', 'proId', 'uuid', 'proType'];

function withSearch(pathname: string, q: URLSearchParams): string {
  const s = q.toString();
  return s ? `${pathname}?${s}` : pathname;
}

/** Only same-app paths are accepted as a target (no open redirect). */
export function safeTarget(t: string | null): string | null {
  if (!t) return null;
  return t.startsWith('/') && !t.startsWith('//') ? t : null;
}

/**
 * The route guard of spec §2, as a pure function of the location and the session. The caller applies the
 * actions (log in with the token, enter or clear the project, keep the list page) and then navigates or
 * renders.
 */
export function decideGuard(pathname: string, search: string, s: GuardState): GuardDecision {
  const route = matchRoute(pathname);
  if (!route) return { kind: 'redirect', to: '/404', actions: [] };
  if (s.expired && !route.static) return { kind: 'loading', route, actions: [] };
  const q = new URLSearchParams(search);
  const actions: GuardAction[] = [];

  // A token in the query string (with target and env) logs the user in.
  const queryToken = q.get('token');
  if (queryToken && !route.login) {
    const envRaw = q.get('env');
    const env =
      envRaw && (ENVS as readonly string[]).includes(envRaw.toUpperCase())
        ? (envRaw.toUpperCase() as Env)
        : null;
    actions.push({ type: 'tokenLogin', token: queryToken, env });
    const target = safeTarget(q.get('target'));
    for (const k of ['token', 'target', 'env']) q.delete(k);
    if (target) return { kind: 'redirect', to: target, actions };
    // continue on the same path (a /project path may also carry proId)
    return decideAfterLogin(route, pathname, q, { ...s, token: queryToken }, actions, true);
  }
  return decideAfterLogin(route, pathname, q, s, actions, false);
}

function decideAfterLogin(
  route: AppRoute,
  pathname: string,
  q: URLSearchParams,
  s: GuardState,
  actions: GuardAction[],
  mustRewrite: boolean,
): GuardDecision {
  // The login route goes to / when already logged in.
  if (route.login) {
    // (to the page the user was sent to log in from, when there is one: the login page goes there too, and
    // both must agree, or whichever navigates last wins)
    if (s.token) return { kind: 'redirect', to: safeTarget(q.get('redirect')) ?? '/', actions };
    return { kind: 'render', route, actions };
  }
  // Static routes are let through.
  if (route.static)
    return mustRewrite
      ? { kind: 'redirect', to: withSearch(pathname, q), actions }
      : { kind: 'render', route, actions };
  // No token: the variant's login path, remembering where the user was going.
  if (!s.token) {
    const back = withSearch(pathname, q);
    const to = LOGIN_VARIANTS[s.variant].path + (back !== '/' ? `?redirect=${encodeURIComponent(back)}` : '');
    return { kind: 'redirect', to, actions };
  }
  // An initial password is changed before anything else (the server refuses the rest meanwhile); the screen
  // remembers where the user was going. Once changed, the screen is left for that place.
  if (s.mustChangePassword && !route.passwordChange) {
    const back = withSearch(pathname, q);
    const keep = back !== '/' && back !== '/overview';
    return { kind: 'redirect', to: `${PASSWORD_CHANGE_PATH}${keep ? `?redirect=${encodeURIComponent(back)}` : ''}`, actions };
  }
  if (!s.mustChangePassword && route.passwordChange) {
    return { kind: 'redirect', to: safeTarget(q.get('redirect')) ?? '/', actions };
  }
  if (route.redirectTo) return { kind: 'redirect', to: withSearch(route.redirectTo, q), actions };

  let entering = false;
  if (pathname.toLowerCase().startsWith('/project')) {
    const proId = Number(q.get('proId'));
    const uuid = q.get('uuid');
    if (Number.isInteger(proId) && proId > 0) {
      // proType (a return after logging in again) enters the project in that environment
      const envRaw = q.get('proType')?.toUpperCase();
      const env = envRaw && (ENVS as readonly string[]).includes(envRaw) ? (envRaw as Env) : null;
      if (proId !== s.projectId || env) actions.push({ type: 'enterProject', proId, ...(env ? { env } : {}) });
      entering = true;
    } else if (uuid) {
      actions.push({ type: 'enterProjectByUuid', uuid });
      entering = true;
    }
  }
  // token and proId are stripped from the query afterwards
  if (STRIPPED.some((k) => q.has(k))) {
    for (const k of STRIPPED) q.delete(k);
    mustRewrite = true;
  }

  // Entering the All route clears the current project and resets the module to 1 (not for eVisit).
  if (route.name === 'All' && s.loginProduct !== 'evisit' && (s.projectId !== null || s.moduleNo !== 1)) {
    actions.push({ type: 'clearProject' });
  }

  // pageNumber is kept as the list page
  const page = Number(q.get('pageNumber'));
  if (Number.isInteger(page) && page > 0 && page !== s.listPage) actions.push({ type: 'listPage', page });

  if (mustRewrite) return { kind: 'redirect', to: withSearch(pathname, q), actions };

  if (route.inProject && s.projectId === null && !entering) {
    if (s.projectPending) return { kind: 'loading', route, actions };
    return { kind: 'redirect', to: '/overview', actions };
  }
  if (!s.access) return { kind: 'loading', route, actions };
  if (!routeAllowed(route, s.access)) return { kind: 'forbidden', route, actions };
  return { kind: 'render', route, actions };
}
