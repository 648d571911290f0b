import type { Env, Language, LoginType, Requirement } from '@esource/shared';

export type Scope = 'system' | 'project' | 'site';

/**
 * Every route declares its guard: `public`, or a permission requirement ('any' = any logged-in user) and a
 * scope. A route without one is refused at start-up.
 */
export type Guard =
  | { public: true }
  | {
      permission: Requirement | 'any';
      scope: Scope;
      /**
       * Open to a user who must first change an initial password (logout, keep-alive, the change itself and
       * what the change screen reads); every other route answers 403 PASSWORD_CHANGE_REQUIRED until then.
       */
      duringPasswordChange?: true;
    };

export interface SessionUser {
  id: number;
  account: string;
  name: string;
  orgId: number | null;
  systemRoleId: number | null;
}

export interface ProjectContext {
  id: number;
  no: string;
  name: string;
  status: number;
  /** spec §3: 1 remote monitoring, 2 E2E; absent in contexts built outside a request (jobs) */
  scene?: number;
  /** spec §3: the five optional functions (project-features.ts); absent in contexts built outside a request */
  configFiveFunction?: string;
  memberId: number;
  roleId: number;
  roleCode: string;
  isDm: boolean;
  /** null = every site of the project */
  siteIds: number[] | null;
}

/** What a handler knows about the request (DESIGN §3.2). */
export interface RequestContext {
  requestId: string;
  language: Language;
  ip: string;
  user: SessionUser | null;
  sessionId: number | null;
  loginType: LoginType | null;
  env: Env;
  project: ProjectContext | null;
  /** proSiteId when sent and allowed */
  siteId: number | null;
  /** effective permissions (system role ∪ project role, cut down for a closed project) */
  pms: Set<string>;
  /** permissions of the system role alone: what system-scope routes are checked against */
  systemPms: Set<string>;
  product: string | null;
  source: string | null;
  orgId: number | null;
}

/** A context with a logged-in user: what guarded handlers receive. */
export type AuthedContext = RequestContext & { user: SessionUser; sessionId: number; loginType: LoginType };
export type ProjectScopedContext = AuthedContext & { project: ProjectContext };
