/** System users (module 2, /system/userSys): routes parse, authorize and hand over to UsersService. */
import { z } from 'zod';
import {
  templateQuery,
  USER_IMPORT_LIMITS,
  userAddRequest,
  userAddResponse,
  userDetail,
  userDetailQuery,
  userExportQuery,
  userImportResponse,
  userListQuery,
  userMessageRequest,
  userMessageResponse,
  userPage,
  userPickerQuery,
  userPickerRow,
  userStatusRequest,
  userUpdateRequest,
  idSchema,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { translator } from '../../lib/i18n';
import { UsersService } from './users.service';
import { contentDisposition, downloadStamp as stamp, readUpload, XLSX_MIME } from '../../lib/excel';

const tags = ['users'];

export function userRoutes({ database }: AppDeps): RouteSpec[] {
  const users = new UsersService(database.db);
  return [
    defineRoute({
      method: 'GET',
      url: '/auth/user/list',
      guard: { permission: { anyOf: ['system:user:query'] }, scope: 'system' },
      summary: 'Users: page, keyword (account, name, phone), status, organisation, login type, sort',
      tags,
      query: userListQuery,
      response: userPage,
      handler: ({ query }) => users.list(query),
    }),
    defineRoute({
      method: 'GET',
      url: '/auth/user/listByKeyWords',
      // system-scope routes are checked against the system role: team:member:query counts when a system role holds it
      guard: { permission: { anyOf: ['system:user:query', 'team:member:query'] }, scope: 'system' },
      summary: 'User picker: enabled users whose account, name or phone contains the keyword (at most 50)',
      tags,
      query: userPickerQuery,
      response: z.array(userPickerRow),
      handler: ({ query }) => users.picker(query.keyword, query.limit),
    }),
    defineRoute({
      method: 'GET',
      url: '/user/detail',
      guard: { permission: { anyOf: ['system:user:query'] }, scope: 'system' },
      summary: 'One user (the read is audited: it shows the ID number)',
      tags,
      query: userDetailQuery,
      response: userDetail,
      handler: ({ ctx, query }) => users.detail(ctx, query.id),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/user/add',
      guard: { permission: { anyOf: ['system:user:add'] }, scope: 'system' },
      summary: 'Add a user; answers the generated initial password once',
      tags,
      body: userAddRequest,
      response: userAddResponse,
      handler: ({ ctx, body }) => users.add(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/user/update',
      guard: { permission: { anyOf: ['system:user:update'] }, scope: 'system' },
      summary: 'Update a user (not the account); every changed field is audited with old and new value',
      tags,
      body: userUpdateRequest,
      response: userDetail,
      handler: ({ ctx, body }) => users.update(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/user/status/update',
      guard: { permission: { anyOf: ['system:user:status'] }, scope: 'system' },
      summary: "Enable (1) or disable (0) a user, with a reason; disabling ends the user's sessions",
      tags,
      body: userStatusRequest,
      response: z.object({ id: z.number().int(), status: z.number().int(), endedSessions: z.number().int() }),
      handler: ({ ctx, body }) => users.setStatus(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/user/sendMessage',
      guard: { permission: { anyOf: ['system:user:message'] }, scope: 'system' },
      summary: 'Send a system message to users (in the current environment)',
      tags,
      body: userMessageRequest,
      response: userMessageResponse,
      handler: ({ ctx, body }) => users.sendMessage(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/user/invite',
      guard: { permission: { anyOf: ['system:user:invite'] }, scope: 'system' },
      summary: 'Invite a user: a new initial password (returned once, to be changed at first login) and a message',
      tags,
      body: z.object({ id: idSchema }),
      response: z.object({ id: z.number().int(), account: z.string(), initialPassword: z.string() }),
      handler: ({ ctx, body }) => users.invite(ctx, body.id),
    }),
    defineRoute({
      method: 'GET',
      url: '/templates/downloadTemplate',
      guard: { permission: { anyOf: ['system:user:import'] }, scope: 'system' },
      summary: 'Import template (.xlsx) with headers in the request language; type=user',
      tags,
      query: templateQuery,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, reply }) => {
        const buf = await users.template(ctx.language);
        const name = translator(ctx.language)('users.templateFileName');
        void reply
          .header('content-type', XLSX_MIME)
          .header('content-disposition', contentDisposition(`${name}.xlsx`, 'user-import-template.xlsx'))
          .header('cache-control', 'no-store')
          .send(buf);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/user/importExcel',
      guard: { permission: { anyOf: ['system:user:import'] }, scope: 'system' },
      summary: 'Import users from one .xlsx (≤ 5 MB), all or nothing; answers each initial password once',
      tags,
      bodyType: 'multipart',
      response: userImportResponse,
      handler: async ({ ctx, req }) => {
        const buf = await readUpload(req, ctx.language, USER_IMPORT_LIMITS.maxBytes);
        return users.importWorkbook(ctx, buf);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/system/user/export',
      guard: { permission: { anyOf: ['system:user:export'] }, scope: 'system' },
      summary: 'The filtered user list as .xlsx (streamed), headers in the request language',
      tags,
      query: userExportQuery,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const { timeZone, ...filters } = query;
        const stream = await users.export(ctx, filters, timeZone);
        const name = `${translator(ctx.language)('users.fileName')}-${stamp()}.xlsx`;
        void reply
          .header('content-type', XLSX_MIME)
          .header('content-disposition', contentDisposition(name, `users-${stamp()}.xlsx`))
          .header('cache-control', 'no-store')
          .send(stream);
        return null;
      },
    }),
  ];
}
