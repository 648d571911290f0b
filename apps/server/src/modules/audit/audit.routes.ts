/**
 * Audit trail screens (module 6 /system/auditTrack, the project's /project/auditLogs) and the login log:
 * filtered, paged, exported. Filters: event, entity, user, date range (≤ 90 days, start not after end).
 */
import { z } from 'zod';
import ExcelJS from 'exceljs';
import type { FastifyReply } from 'fastify';
import { and, asc, count, desc, eq, gte, inArray, lte, or, type SQL } from 'drizzle-orm';
import { auditLogPage, auditLogQuery, intSchema, userPickerRow, type Language } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { auditEvents } from '../../db/schema';
import { translator } from '../../lib/i18n';
import { safeRow } from '../../lib/excel';
import type { Db } from '../../db/client';
import { offsetOf, pageOf } from '../../lib/page';
import type { AuthedContext, ProjectScopedContext } from '../../lib/context';
import { actorOf, projectEventNames, projectTrail, projectTrailUsers, recordAudit } from './audit.service';
import { presentAuditRows, type AuditViewer } from './audit.present';

type Query = z.output<typeof auditLogQuery>;
const exportQuery = auditLogQuery;
const eventOption = z.object({ value: z.string(), label: z.string() });
/** The project page's user filter: a keyword, at most 20 answers. */
const trailUserQuery = z.object({
  keyword: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(50).optional()),
  limit: intSchema(1, 20).default(20),
});

function labelled(lang: Language, actions: string[]) {
  const t = translator(lang);
  return actions.map((a) => ({ value: a, label: t(`auditActions.${a}`, { defaultValue: a }) }));
}
/** At most this many rows go into one export file. */
export const AUDIT_EXPORT_MAX = 100_000;
/** The login log: logins, failed logins, logouts, and entering and leaving a project (inProInfo / outProInfo). */
export const LOGIN_ACTIONS = ['login.success', 'login.failure', 'logout', 'project.enter', 'project.leave'] as const;
/**
 * The authorisation log (spec §7 /auth/log/page): every change of who may do what. Roles and their permissions,
 * permission groups (login windows, reviewer), project membership (role and sites, status), and of a user's own
 * record only the fields that grant access (login types, system role, permission group) and its status.
 */
export const AUTH_ACTIONS = [
  'role.add', 'role.update', 'role.delete',
  'group.add', 'group.update', 'group.delete',
  'member.add', 'member.invite', 'member.update', 'member.status',
  'user.add', 'user.update', 'user.status',
  'centerApply.review',
] as const;
const AUTH_USER_FIELDS = ['loginTypes', 'systemRoleId', 'permissionGroupId', 'status'];
const authTrail = (): SQL =>
  or(
    inArray(auditEvents.action, AUTH_ACTIONS.filter((a) => a !== 'user.add' && a !== 'user.update')),
    and(inArray(auditEvents.action, ['user.add', 'user.update']), inArray(auditEvents.field, AUTH_USER_FIELDS)),
  )!;

/** Who reads a trail: system screens are checked against the system role alone, project screens against both. */
const systemViewer = (ctx: AuthedContext): AuditViewer => ({ language: ctx.language, pms: ctx.systemPms });
const projectViewer = (ctx: AuthedContext): AuditViewer => ({ language: ctx.language, pms: ctx.pms });
/** Rows presented (masked and enriched) this many at a time in an export. */
const PRESENT_BATCH = 1000;

function filters(q: Query): (SQL | undefined)[] {
  return [
    q.action ? eq(auditEvents.action, q.action) : undefined,
    q.entity ? eq(auditEvents.entity, q.entity) : undefined,
    q.userId ? eq(auditEvents.userId, q.userId) : undefined,
    q.startTime ? gte(auditEvents.createdAt, q.startTime) : undefined,
    q.endTime ? lte(auditEvents.createdAt, q.endTime) : undefined,
  ];
}

async function page(db: Db, viewer: AuditViewer, where: SQL | undefined, q: Query) {
  const [total] = await db.select({ n: count() }).from(auditEvents).where(where);
  const rows = await db
    .select()
    .from(auditEvents)
    .where(where)
    .orderBy(desc(auditEvents.id))
    .limit(q.pageSize)
    .offset(offsetOf(q));
  return pageOf(q, total?.n ?? 0, await presentAuditRows(db, viewer, rows));
}

async function exportXlsx(db: Db, viewer: AuditViewer, where: SQL | undefined, reply: FastifyReply, fileName: string, sheetKey = 'audit.sheet') {
  const lang: Language = viewer.language;
  const t = translator(lang);
  const rows = await db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.id)).limit(AUDIT_EXPORT_MAX);
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet(t(sheetKey));
  // the readable columns first (what a monitor reads), the technical ones after
  ws.columns = [
    { header: t('audit.time'), key: 'time', width: 24 },
    { header: t('audit.user'), key: 'user', width: 20 },
    { header: t('audit.env'), key: 'env', width: 6 },
    { header: t('audit.action'), key: 'action', width: 22 },
    { header: t('audit.subject'), key: 'subject', width: 12 },
    { header: t('audit.site'), key: 'site', width: 20 },
    { header: t('audit.visit'), key: 'visit', width: 18 },
    { header: t('audit.form'), key: 'form', width: 18 },
    { header: t('audit.object'), key: 'object', width: 24 },
    { header: t('audit.field'), key: 'field', width: 20 },
    { header: t('audit.oldValue'), key: 'oldValue', width: 30 },
    { header: t('audit.newValue'), key: 'newValue', width: 30 },
    { header: t('audit.reason'), key: 'reason', width: 24 },
    { header: t('audit.ip'), key: 'ip', width: 16 },
    { header: t('audit.requestId'), key: 'requestId', width: 38 },
    { header: t('audit.entityType'), key: 'entity', width: 14 },
    { header: t('audit.entityId'), key: 'entityId', width: 10 },
    { header: t('audit.fieldCode'), key: 'fieldCode', width: 18 },
  ];
  ws.getRow(1).font = { bold: true };
  // an event carrying several item changes (a form's batch save) is one line per item, the event's columns repeated
  let lines = 0;
  for (let i = 0; i < rows.length && lines < AUDIT_EXPORT_MAX; i += PRESENT_BATCH) {
    for (const r of await presentAuditRows(db, viewer, rows.slice(i, i + PRESENT_BATCH))) {
      const d = r.display;
      const parts = d.changes?.length
        ? d.changes.map((c, k) => ({ ...c, code: r.changes?.[k]?.field ?? '' }))
        : [{ field: d.field, oldValue: d.oldValue, newValue: d.newValue, reason: d.reason, code: r.field ?? '' }];
      for (const c of parts) {
        if (lines++ >= AUDIT_EXPORT_MAX) break;
        ws.addRow(safeRow({
          time: r.createTime,
          user: r.userName ?? '',
          env: r.env ?? '',
          action: d.event,
          subject: d.subject ?? '',
          site: d.site ?? '',
          visit: d.visit ?? '',
          form: d.form ?? '',
          object: d.target ? `${d.entity} ${d.target}` : d.entity,
          field: c.field ?? '',
          oldValue: c.oldValue ?? '',
          newValue: c.newValue ?? '',
          reason: c.reason ?? d.reason ?? '',
          ip: r.ip ?? '',
          requestId: r.requestId ?? '',
          entity: r.entity,
          entityId: r.entityId ?? '',
          fieldCode: c.code,
        }));
      }
    }
  }
  const buf = Buffer.from(await wb.xlsx.writeBuffer());
  await reply
    .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    .header('content-disposition', `attachment; filename="${fileName}"; filename*=UTF-8''${encodeURIComponent(fileName)}`)
    .send(buf);
  return null;
}

const stamp = () => new Date().toISOString().slice(0, 10);

/** Records that the caller entered or left the open project (environment included): one audited event. */
async function projectVisit(db: Db, ctx: ProjectScopedContext, action: 'project.enter' | 'project.leave'): Promise<null> {
  await db.transaction((tx) =>
    recordAudit(tx, actorOf(ctx), [{ action, entity: 'project', entityId: ctx.project.id, projectId: ctx.project.id, newValue: ctx.project.no }]),
  );
  return null;
}

export function auditRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  const systemGuard = { permission: { anyOf: ['syslog:audit-track:query', 'syslog:audit-supervise-log:query'] }, scope: 'system' } as const;
  const projectGuard = { permission: { anyOf: ['syslog:audit-supervise-log:query', 'prolog:audit-action:query'] }, scope: 'project' } as const;
  const loginGuard = { permission: { anyOf: ['syslog:login-log:query', 'syslog:audit-track:query'] }, scope: 'system' } as const;
  const authGuard = { permission: { anyOf: ['syslog:auth-log:query', 'syslog:audit-track:query'] }, scope: 'system' } as const;
  return [
    // entering and leaving a project (spec §7 login/inProInfo, login/outProInfo): the web app reports both; any
    // member of the project may, and only for the project its own request is in (the proid header)
    defineRoute({
      method: 'POST',
      url: '/audit/log/login/inProInfo',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Records that the caller entered the open project (login log)',
      tags: ['audit'],
      response: z.null(),
      handler: ({ ctx }) => projectVisit(db, ctx, 'project.enter'),
    }),
    defineRoute({
      method: 'POST',
      url: '/audit/log/login/outProInfo',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Records that the caller left the open project (login log)',
      tags: ['audit'],
      response: z.null(),
      handler: ({ ctx }) => projectVisit(db, ctx, 'project.leave'),
    }),
    defineRoute({
      method: 'GET',
      url: '/audit/log/login/eventNameList',
      guard: loginGuard,
      summary: 'Events of the login log (for its event filter)',
      tags: ['audit'],
      response: z.array(eventOption),
      handler: ({ ctx }) => Promise.resolve(labelled(ctx.language, [...LOGIN_ACTIONS])),
    }),
    defineRoute({
      method: 'POST',
      url: '/auth/log/page',
      guard: authGuard,
      summary: 'Authorisation log: changes of roles, permissions, permission groups and memberships, old and new',
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ ctx, body }) => page(db, systemViewer(ctx), and(authTrail(), ...filters(body)), body),
    }),
    defineRoute({
      method: 'GET',
      url: '/auth/log/exportExcel',
      guard: { permission: { anyOf: ['syslog:auth-log:export', 'syslog:audit-track:export'] }, scope: 'system' },
      summary: 'Authorisation log as Excel',
      tags: ['audit'],
      query: exportQuery,
      response: z.null(),
      raw: true,
      handler: ({ ctx, query, reply }) =>
        exportXlsx(db, systemViewer(ctx), and(authTrail(), ...filters(query)), reply, `auth-log-${stamp()}.xlsx`, 'audit.sheetAuth'),
    }),
    defineRoute({
      method: 'GET',
      url: '/auth/log/eventNameList',
      guard: authGuard,
      summary: 'Events of the authorisation log (for its event filter)',
      tags: ['audit'],
      response: z.array(eventOption),
      handler: ({ ctx }) => Promise.resolve(labelled(ctx.language, [...AUTH_ACTIONS])),
    }),
    defineRoute({
      method: 'GET',
      url: '/audit/log/eventNameList',
      guard: { permission: { anyOf: ['syslog:audit-track:query', 'syslog:audit-supervise-log:query', 'prolog:audit-action:query'] }, scope: 'system' },
      summary: 'Event names present in the audit trail (for the event filter)',
      tags: ['audit'],
      response: z.array(eventOption),
      handler: async ({ ctx }) => {
        const rows = await db.selectDistinct({ a: auditEvents.action }).from(auditEvents).orderBy(asc(auditEvents.action));
        return labelled(ctx.language, rows.map((r) => r.a));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/audit/log/v1/listByPage',
      guard: systemGuard,
      summary: 'System audit trail (every chain), newest first',
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ ctx, body }) => page(db, systemViewer(ctx), and(...filters(body)), body),
    }),
    defineRoute({
      method: 'GET',
      url: '/audit/log/v1/export',
      guard: { permission: { anyOf: ['syslog:audit-track:export', 'syslog:audit-supervise-log:export'] }, scope: 'system' },
      summary: `System audit trail as Excel (same filters; at most ${AUDIT_EXPORT_MAX} rows)`,
      tags: ['audit'],
      query: exportQuery,
      response: z.null(),
      raw: true,
      handler: ({ ctx, query, reply }) => exportXlsx(db, systemViewer(ctx), and(...filters(query)), reply, `audit-trail-${stamp()}.xlsx`),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/auditLogs/listByPage',
      guard: projectGuard,
      summary: "The open project's audit trail in this environment, newest first",
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ ctx, body }) => page(db, projectViewer(ctx), and(projectTrail(ctx.project.id, ctx.env), ...filters(body)), body),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/auditLogs/eventNameList',
      guard: projectGuard,
      summary: "Event names present in the open project's trail in this environment (for the event filter)",
      tags: ['audit'],
      response: z.array(eventOption),
      handler: async ({ ctx }) => labelled(ctx.language, await projectEventNames(db, ctx.project.id, ctx.env)),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/auditLogs/userList',
      guard: projectGuard,
      summary: "Users who appear in the open project's trail in this environment, by account or name keyword (at most 20)",
      tags: ['audit'],
      query: trailUserQuery,
      response: z.array(userPickerRow),
      handler: ({ ctx, query }) => projectTrailUsers(db, ctx.project.id, ctx.env, query.keyword, query.limit),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/auditLogs/export',
      guard: { permission: { anyOf: ['syslog:audit-supervise-log:export', 'prolog:audit-action:export'] }, scope: 'project' },
      summary: "The open project's audit trail as Excel",
      tags: ['audit'],
      query: exportQuery,
      response: z.null(),
      raw: true,
      handler: ({ ctx, query, reply }) =>
        exportXlsx(
          db,
          projectViewer(ctx),
          and(projectTrail(ctx.project.id, ctx.env), ...filters(query)),
          reply,
          `${ctx.project.no}-audit-${ctx.env}-${stamp()}.xlsx`,
        ),
    }),
    defineRoute({
      method: 'POST',
      url: '/audit/log/login/page',
      guard: loginGuard,
      summary: 'Login log: logins, failed logins and logouts',
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ ctx, body }) => page(db, systemViewer(ctx), and(inArray(auditEvents.action, [...LOGIN_ACTIONS]), ...filters(body)), body),
    }),
    defineRoute({
      method: 'GET',
      url: '/audit/log/login/export',
      guard: { permission: { anyOf: ['syslog:login-log:export', 'syslog:audit-track:export'] }, scope: 'system' },
      summary: 'Login log as Excel',
      tags: ['audit'],
      query: exportQuery,
      response: z.null(),
      raw: true,
      handler: ({ ctx, query, reply }) =>
        exportXlsx(db, systemViewer(ctx), and(inArray(auditEvents.action, [...LOGIN_ACTIONS]), ...filters(query)), reply, `login-log-${stamp()}.xlsx`),
    }),
  ];
}
