/**
 * Shared forms (issue 15 item 6; docs/decisions.md "Shared forms"). Staff: links under crf:result:save (who may enter
 * the form's data may hand it to the participant), within their sites; the micro configs are read with crf:form:query
 * and saved with crf:form:update. The participant: two public calls, rate-limited per address, that need the code.
 */
import { z } from 'zod';
import {
  microCrfConfigSave,
  microCrfConfigView,
  microDcConfigSave,
  microDcConfigView,
  microDcFormRow,
  shareAcceptRequest,
  shareAcceptResult,
  shareCreated,
  shareCreateRequest,
  shareIdQuery,
  shareLinkCode,
  sharePage,
  sharePageRequest,
  sharePublicDone,
  sharePublicRequest,
  sharePublicSubmit,
  sharePublicView,
  shareRevokeRequest,
  shareRow,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { pageOf } from '../../lib/page';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { DdcPublicService } from './ddc-public.service';
import { DdcService } from './ddc.service';
import { MicroConfigService } from './micro-config.service';

const SHARE = { permission: { anyOf: ['crf:result:save'] }, scope: 'project' } as const;
const CONFIG_READ = { permission: { anyOf: ['crf:form:query'] }, scope: 'project' } as const;
const CONFIG_SAVE = { permission: { anyOf: ['crf:form:update'] }, scope: 'project' } as const;
const tags = ['ddc'];

export function ddcRoutes({ database }: AppDeps): RouteSpec[] {
  const links = new DdcService(database.db);
  const pub = new DdcPublicService(database.db);
  const micro = new MicroConfigService(database.db);
  return [
    defineRoute({
      method: 'POST',
      url: '/ddc/share/add',
      guard: SHARE,
      summary:
        "Create a link to one form of one subject's visit (hours 1–720 within the project's longest; the project's data-collection settings decide which forms); the code is answered this once",
      tags,
      bodyType: 'json',
      body: shareCreateRequest,
      response: shareCreated,
      handler: ({ ctx, body }) => links.create(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/ddc/share/page',
      guard: SHARE,
      summary:
        "The links of the caller's sites: status (active/used/expired/revoked), review, site, keyword and mine filters, by creation or expiry, paged 50/100/200",
      tags,
      body: sharePageRequest,
      response: sharePage,
      handler: async ({ ctx, body }) => {
        const { total, rows } = await links.page(ctx, body);
        return pageOf(body, total, rows);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/ddc/share/revoke',
      guard: SHARE,
      summary: 'Revoke an active link (optional reason); refused for a used, expired or revoked one',
      tags,
      body: shareRevokeRequest,
      response: shareRow,
      handler: ({ ctx, body }) => links.revoke(ctx, body.id, body.reason),
    }),
    defineRoute({
      method: 'GET',
      url: '/ddc/share/link',
      guard: SHARE,
      summary: "An active link's code, to copy the link again (audited)",
      tags,
      query: shareIdQuery,
      response: shareLinkCode,
      handler: ({ ctx, query }) => links.code(ctx, query.id),
    }),
    defineRoute({
      method: 'POST',
      url: '/ddc/share/accept',
      guard: SHARE,
      summary:
        "Accept a participant's answers as they are at the version shown: the form's pending review ends",
      tags,
      body: shareAcceptRequest,
      response: shareAcceptResult,
      handler: ({ ctx, body }) => links.accept(ctx, body.instanceId, body.version),
    }),
    defineRoute({
      method: 'POST',
      url: '/ddc/public/form',
      guard: { public: true },
      summary:
        "The shared form of a code (no account): the form and what the project's micro CRF settings show; refused when unknown, used, expired, revoked or closed (each attempt audited)",
      tags,
      bodyType: 'json',
      body: sharePublicRequest,
      response: sharePublicView,
      rateLimit: { max: 60, timeWindow: '1 minute' },
      handler: ({ ctx, body }) => pub.open(ctx, body.code),
    }),
    defineRoute({
      method: 'POST',
      url: '/ddc/public/submit',
      guard: { public: true },
      summary:
        "Submit a shared form's answers (no account), once: saved by the eCRF's save with the form's rules (entry mode 7), pending the site's review",
      tags,
      bodyType: 'json',
      body: sharePublicSubmit,
      response: sharePublicDone,
      rateLimit: { max: 20, timeWindow: '1 minute' },
      handler: ({ ctx, body }) => pub.submit(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/micro/crf/config/get',
      guard: CONFIG_READ,
      summary: "What the project environment's shared forms show (the defaults when never saved: version 0)",
      tags,
      response: microCrfConfigView,
      handler: ({ ctx }) => micro.get(ctx, 'crf'),
    }),
    defineRoute({
      method: 'POST',
      url: '/micro/crf/config/save',
      guard: CONFIG_SAVE,
      summary: 'Save what shared forms show, at the version read; each changed setting audited',
      tags,
      bodyType: 'json',
      body: microCrfConfigSave,
      response: microCrfConfigView,
      handler: ({ ctx, body }) => micro.save(ctx, 'crf', body),
    }),
    defineRoute({
      method: 'GET',
      url: '/micro/dc/config/get',
      guard: CONFIG_READ,
      summary:
        "The project environment's data-collection settings: sharing on, which forms, default and longest validity",
      tags,
      response: microDcConfigView,
      handler: ({ ctx }) => micro.get(ctx, 'dc'),
    }),
    defineRoute({
      method: 'POST',
      url: '/micro/dc/config/save',
      guard: CONFIG_SAVE,
      summary: 'Save the data-collection settings at the version read; each changed setting audited',
      tags,
      bodyType: 'json',
      body: microDcConfigSave,
      response: microDcConfigView,
      handler: ({ ctx, body }) => micro.save(ctx, 'dc', body),
    }),
    defineRoute({
      method: 'GET',
      url: '/micro/dc/forms',
      guard: CONFIG_READ,
      summary:
        "The project's form codes (every design version) for the data-collection settings, with file items flagged",
      tags,
      response: z.array(microDcFormRow),
      handler: ({ ctx }) => micro.dcForms(ctx),
    }),
  ];
}
