import { z } from 'zod';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import {
  memberInput,
  memberInvite,
  memberMessageRequest,
  memberPage,
  memberPageRequest,
  memberRow,
  memberStatusRequest,
  memberUpdate,
  intSchema,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { safeRow } from '../../lib/excel';
import { TeamService } from './team.service';

export function teamRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new TeamService(database.db);
  return [
    defineRoute({
      method: 'POST',
      url: '/pro/user/page',
      guard: { permission: { anyOf: ['team:member:query'] }, scope: 'project' },
      summary: 'Team members of the project in this environment: search, filters, paging',
      tags: ['team'],
      body: memberPageRequest,
      response: memberPage,
      handler: ({ ctx, body }) => svc.page(ctx, body, body.pageNumber, body.pageSize),
    }),
    defineRoute({
      method: 'GET',
      url: '/pro/user/candidates',
      guard: { permission: { anyOf: ['team:member:add', 'team:member:invite'] }, scope: 'project' },
      summary: 'Enabled users who are not yet members in this environment (picker for adding members)',
      tags: ['team'],
      query: z.object({ keyword: z.string().max(50).default(''), limit: intSchema(1, 50).default(20) }),
      response: z.array(z.object({ id: z.number().int(), account: z.string(), name: z.string(), orgName: z.string().nullable() })),
      handler: ({ ctx, query }) => svc.candidates(ctx, query.keyword, query.limit),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/user/add',
      guard: { permission: { anyOf: ['team:member:add'] }, scope: 'project' },
      summary: 'Add a user to the project team with a role and sites (DEV: data-manager roles only)',
      tags: ['team'],
      body: memberInput,
      response: memberRow,
      handler: ({ ctx, body }) => svc.add(ctx, body.userId, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/user/invite',
      guard: { permission: { anyOf: ['team:member:invite'] }, scope: 'project' },
      summary: 'Invite a user by account: adds them to the team and sends them an invitation message',
      tags: ['team'],
      body: memberInvite,
      response: memberRow,
      handler: async ({ ctx, body }) => {
        const [u] = await database.db.select({ id: users.id }).from(users).where(sql`lower(${users.account}) = lower(${body.account})`);
        if (!u) throw new AppError('NOT_FOUND', { entity: 'user' });
        return svc.add(ctx, u.id, body, 'member.invite');
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/user/update',
      guard: { permission: { anyOf: ['team:member:update'] }, scope: 'project' },
      summary: 'Change a member\'s role and sites',
      tags: ['team'],
      body: memberUpdate,
      response: memberRow,
      handler: ({ ctx, body }) => svc.update(ctx, body.id, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/user/updateStatus',
      guard: { permission: { anyOf: ['team:member:update'] }, scope: 'project' },
      summary: 'Enable or disable a membership',
      tags: ['team'],
      body: memberStatusRequest,
      response: memberRow,
      handler: ({ ctx, body }) => svc.setStatus(ctx, body.id, body.status),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/user/sendMessage',
      guard: { permission: { anyOf: ['team:member:update', 'team:member:invite'] }, scope: 'project' },
      summary: 'Send a message to team members',
      tags: ['team'],
      body: memberMessageRequest,
      response: z.object({ sent: z.number().int() }),
      handler: async ({ ctx, body }) => ({ sent: await svc.message(ctx, body.memberIds, body.title, body.content) }),
    }),
    defineRoute({
      method: 'GET',
      url: '/pro/user/export',
      guard: { permission: { allOf: ['team:member:query'] }, scope: 'project' },
      summary: 'The team list (same filters as the page) as an Excel file',
      tags: ['team'],
      query: memberPageRequest.omit({ pageNumber: true, pageSize: true }),
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const t = translator(ctx.language);
        const rows = await svc.all(ctx, query);
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet(t('team.sheet'));
        ws.columns = [
          { header: t('team.account'), key: 'account', width: 18 },
          { header: t('team.name'), key: 'name', width: 20 },
          { header: t('team.org'), key: 'org', width: 28 },
          { header: t('team.role'), key: 'role', width: 16 },
          { header: t('team.sites'), key: 'sites', width: 30 },
          { header: t('team.status'), key: 'status', width: 10 },
        ];
        ws.getRow(1).font = { bold: true };
        for (const r of rows) {
          ws.addRow(safeRow({
            account: r.account,
            name: r.name,
            org: r.orgName ?? '',
            role: `${r.roleCode} ${r.roleName}`,
            sites: r.allSites ? t('team.allSites') : r.sites.map((s) => `${s.siteNo} ${s.name}`).join('; '),
            status: r.status === 1 ? t('team.enabled') : t('team.disabled'),
          }));
        }
        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `${ctx.project.no}-team-${ctx.env}.xlsx`;
        await reply
          .header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .header('content-disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`)
          .send(buf);
        return null;
      },
    }),
  ];
}

