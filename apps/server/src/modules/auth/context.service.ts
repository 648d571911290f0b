/**
 * Builds the request context from the headers (DESIGN §3.2) and enforces the route's guard (§3.3): session,
 * environment, project membership, site scope, and permissions (cut down for a closed project).
 * The server is the authority; the web app only mirrors it.
 */
import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  DEFAULT_ENV,
  ENVS,
  INT4_MAX,
  can,
  effectivePermissions,
  featureOffFor,
  productPermissions,
  projectFeaturePermissions,
  normalizeLanguage,
  type Env,
  type Language,
  type LoginType,
  type Requirement,
} from '@esource/shared';
import { translator } from '../../lib/i18n';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { fieldError } from '../../lib/validate';
import type { Guard, RequestContext } from '../../lib/context';
import * as repo from './auth.repo';
import type { AccessLoader } from './access-cache';

export function hashToken(token: string): string {
  // (the one-shot hash: a third of createHash's time, on every request)
  return hash('sha256', token, 'hex');
}

function header(req: FastifyRequest, name: string): string | null {
  const v = req.headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() !== '' ? s.trim() : null;
}

/** An id header: decimal digits only, 1..INT4_MAX (ids are PostgreSQL integers); anything else answers 400 naming it. */
function intHeader(req: FastifyRequest, name: string, lang: Language): number | null {
  const v = header(req, name);
  if (v === null) return null;
  const n = /^[1-9]\d{0,9}$/.test(v) ? Number(v) : NaN;
  if (!(n <= INT4_MAX)) throw fieldError(lang, name, 'validation.id', {}, 'validation.headerField');
  return n;
}

/** The headers the guard reads (DESIGN §3.2), checked before anything is looked up with them. */
function contextHeaders(req: FastifyRequest, lang: Language) {
  const proType = header(req, 'proType');
  if (proType !== null && !(ENVS as readonly string[]).includes(proType.toUpperCase())) {
    throw fieldError(lang, 'proType', 'validation.proType', {}, 'validation.headerField');
  }
  return {
    proId: intHeader(req, 'proId', lang),
    proSiteId: intHeader(req, 'proSiteId', lang),
    orgId: intHeader(req, 'orgId', lang),
    env: proType === null ? null : (proType.toUpperCase() as Env),
  };
}

/** The bare context: language, request id, headers; no session lookup yet. */
export function baseContext(req: FastifyRequest): RequestContext {
  const proType = header(req, 'proType');
  return {
    requestId: req.id,
    language: normalizeLanguage(header(req, 'language') ?? req.headers['accept-language']?.toString()),
    ip: req.ip,
    user: null,
    sessionId: null,
    loginType: null,
    env: proType && (ENVS as readonly string[]).includes(proType.toUpperCase()) ? (proType.toUpperCase() as Env) : DEFAULT_ENV,
    project: null,
    siteId: null,
    pms: new Set(),
    systemPms: new Set(),
    product: header(req, 'product'),
    source: header(req, 'source'),
    orgId: null,
  };
}

/**
 * Resolves the session, project and permissions, and enforces the guard. Mutates and returns ctx. `load` reads the
 * access row: the process's AccessCache (invalidated by NOTIFY, access-cache.ts) or the database every time.
 */
export async function authorize(
  db: Db,
  req: FastifyRequest,
  ctx: RequestContext,
  guard: Guard,
  load: AccessLoader = repo.loadAccess,
): Promise<RequestContext> {
  const h = contextHeaders(req, ctx.language);
  const token = header(req, 'token') ?? bearer(req);
  const isPublic = 'public' in guard;
  if (!token) {
    if (isPublic) return ctx;
    throw new AppError('UNAUTHENTICATED');
  }
  const proId = isPublic ? null : h.proId;
  const a = await load(db, hashToken(token), h.env, proId);
  if (!a || a.expiresAt.getTime() <= Date.now() || a.userStatus !== 1) {
    if (isPublic) return ctx;
    throw new AppError('UNAUTHENTICATED');
  }
  ctx.user = { id: a.userId, account: a.account, name: a.name, orgId: a.orgId, systemRoleId: a.systemRoleId };
  ctx.sessionId = a.sessionId;
  ctx.loginType = a.loginType as LoginType;
  // The proType header chooses the environment; without it, the session's (set by envTypeSwitch).
  ctx.env = a.env;
  ctx.orgId = h.orgId ?? a.orgId;
  if (isPublic) return ctx;
  if (a.mustChangePassword && !guard.duringPasswordChange) throw new AppError('PASSWORD_CHANGE_REQUIRED');

  const needsProject = guard.scope === 'project' || guard.scope === 'site';
  const m = a.project;
  if (proId === null && needsProject) throw new AppError('PROJECT_REQUIRED');
  if (proId !== null && !m && needsProject) throw new AppError('NOT_MEMBER');
  if (m) {
    if (!repo.roleAllowsEnv(m, ctx.env)) throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    ctx.project = {
      id: m.id,
      no: m.no,
      name: m.name,
      status: m.status,
      scene: m.scene,
      configFiveFunction: m.configFiveFunction,
      memberId: m.memberId,
      roleId: m.roleId,
      roleCode: m.roleCode,
      isDm: m.isDm,
      siteIds: m.allSites ? null : m.siteIds,
    };
  }

  const proSiteId = h.proSiteId;
  if (proSiteId !== null && ctx.project) {
    if (ctx.project.siteIds !== null && !ctx.project.siteIds.includes(proSiteId)) throw new AppError('SITE_FORBIDDEN');
    ctx.siteId = proSiteId;
  }
  if (guard.scope === 'site' && ctx.siteId === null) throw new AppError('SITE_REQUIRED');

  const { held0, pms, systemPms } = permissionsOf(a);
  ctx.pms = pms;
  ctx.systemPms = systemPms;
  // A project role never opens a system-scope route: those are checked against the system role alone.
  const held = guard.scope === 'system' ? ctx.systemPms : ctx.pms;
  if (guard.permission !== 'any' && !can(held, guard.permission)) {
    // refused only because the project switched the function off: say so, naming the function
    if (m && guard.scope !== 'system' && can(held0, guard.permission)) {
      const off = switchedOff(guard.permission, held0, m);
      if (off) throw new AppError('PROJECT_FEATURE_OFF', { feature: translator(ctx.language)(`projectFeatures.${off}`) });
    }
    throw new AppError('FORBIDDEN');
  }
  return ctx;
}

/**
 * The permissions an access row grants, worked out once per row: a row the guard's cache keeps (frozen) serves many
 * requests, which share these sets — nothing may change them (no code adds to or deletes from a context's sets).
 */
const granted = new WeakMap<repo.AccessRow, { held0: string[]; pms: Set<string>; systemPms: Set<string> }>();
function permissionsOf(a: repo.AccessRow): { held0: string[]; pms: Set<string>; systemPms: Set<string> } {
  let g = granted.get(a);
  if (!g) {
    const m = a.project;
    // the adverse-event product (login type 4) keeps only the safety review's permissions
    const held0 = productPermissions(effectivePermissions([...a.systemPms, ...(m?.pms ?? [])], m?.status), a.loginType);
    g = {
      held0,
      // the project's scene and five functions cut what they switch off (project-features.ts), as a closed project does
      pms: new Set(projectFeaturePermissions(held0, m)),
      systemPms: new Set(productPermissions(a.systemPms, a.loginType)),
    };
    granted.set(a, g);
  }
  return g;
}

/** The function (scene or one of the five) whose switch took away what the requirement needs, if one did. */
function switchedOff(req: Requirement, held: readonly string[], p: { scene: number; configFiveFunction: string }): string | null {
  const needed = [...(req.allOf ?? []), ...(req.anyOf ?? [])].filter((x) => held.includes(x));
  for (const x of needed) {
    const off = featureOffFor(x, p);
    if (off) return off;
  }
  return null;
}

function bearer(req: FastifyRequest): string | null {
  const a = req.headers.authorization;
  return a && a.startsWith('Bearer ') ? a.slice(7).trim() || null : null;
}
