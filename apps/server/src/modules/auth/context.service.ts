/**
 * Builds the request context from the headers (DESIGN §3.2) and enforces the route's guard (§3.3): session,
 * environment, project membership, site scope, and permissions (cut down for a closed project).
 * The server is the authority; the web app only mirrors it.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_ENV, ENVS, can, effectivePermissions, normalizeLanguage, type Env, type LoginType } from '@esource/shared';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { Guard, RequestContext } from '../../lib/context';
import * as repo from './auth.repo';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function header(req: FastifyRequest, name: string): string | null {
  const v = req.headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() !== '' ? s.trim() : null;
}

function intHeader(req: FastifyRequest, name: string): number | null {
  const v = header(req, name);
  if (v === null) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    throw new AppError('VALIDATION', { detail: name }, [{ field: name, message: 'validation.idList' }]);
  }
  return n;
}

/** The bare context: language, request id, headers; no session lookup yet. */
export function baseContext(req: FastifyRequest): RequestContext {
  const proType = header(req, 'proType');
  return {
    requestId: String(req.id),
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

/** Resolves the session, project and permissions, and enforces the guard. Mutates and returns ctx. */
export async function authorize(db: Db, req: FastifyRequest, ctx: RequestContext, guard: Guard): Promise<RequestContext> {
  const token = header(req, 'token') ?? bearer(req);
  if ('public' in guard) {
    // A public route still learns who is calling when a valid token comes along (e.g. login redirect).
    if (token) await attachSession(db, req, ctx, token, false);
    return ctx;
  }
  if (!token) throw new AppError('UNAUTHENTICATED');
  await attachSession(db, req, ctx, token, true);
  const user = ctx.user!;

  const systemPms = user.systemRoleId ? await repo.permissionsOfRoles(db, [user.systemRoleId]) : [];
  let projectPms: string[] = [];
  const proId = intHeader(req, 'proId');
  const needsProject = guard.scope === 'project' || guard.scope === 'site';
  if (proId !== null) {
    const m = await repo.findMembership(db, proId, user.id, ctx.env);
    if (!m) {
      if (needsProject) throw new AppError('NOT_MEMBER');
    } else {
      if (!repo.roleAllowsEnv(m, ctx.env)) throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
      const siteIds = m.allSites ? null : await repo.memberSiteIds(db, m.memberId);
      ctx.project = {
        id: m.projectId,
        no: m.no,
        name: m.name,
        status: m.status,
        memberId: m.memberId,
        roleId: m.roleId,
        roleCode: m.roleCode,
        isDm: m.isDm,
        siteIds,
      };
      projectPms = await repo.permissionsOfRoles(db, [m.roleId]);
    }
  } else if (needsProject) {
    throw new AppError('PROJECT_REQUIRED');
  }

  const proSiteId = intHeader(req, 'proSiteId');
  if (proSiteId !== null && ctx.project) {
    if (ctx.project.siteIds !== null && !ctx.project.siteIds.includes(proSiteId)) throw new AppError('SITE_FORBIDDEN');
    ctx.siteId = proSiteId;
  }
  if (guard.scope === 'site' && ctx.siteId === null) throw new AppError('SITE_REQUIRED');

  ctx.pms = new Set(effectivePermissions([...systemPms, ...projectPms], ctx.project?.status));
  ctx.systemPms = new Set(systemPms);
  // A project role never opens a system-scope route: those are checked against the system role alone.
  const held = guard.scope === 'system' ? ctx.systemPms : ctx.pms;
  if (guard.permission !== 'any' && !can(held, guard.permission)) throw new AppError('FORBIDDEN');
  return ctx;
}

function bearer(req: FastifyRequest): string | null {
  const a = req.headers.authorization;
  return a && a.startsWith('Bearer ') ? a.slice(7).trim() || null : null;
}

async function attachSession(db: Db, req: FastifyRequest, ctx: RequestContext, token: string, required: boolean) {
  const s = await repo.findActiveSession(db, hashToken(token));
  if (!s || s.expiresAt.getTime() <= Date.now() || s.userStatus !== 1) {
    if (required) throw new AppError('UNAUTHENTICATED');
    return;
  }
  ctx.user = { id: s.userId, account: s.account, name: s.name, orgId: s.orgId, systemRoleId: s.systemRoleId };
  ctx.sessionId = s.id;
  ctx.loginType = s.loginType as LoginType;
  // The proType header chooses the environment; without it, the session's (set by envTypeSwitch).
  if (!header(req, 'proType')) ctx.env = s.env as Env;
  ctx.orgId = intHeader(req, 'orgId') ?? s.orgId;
}
