/**
 * E-consent participants (issue 15 item 7; spec §7 Subjects). Listing and adding are gated like adding a subject
 * (patient:page:add); the connection to the e-consent system like the hospital connections (source:config:query to
 * read it, source:config:update to change or try it). The token is never returned.
 */
import {
  ecAddRequest,
  ecAddResult,
  ecConfigSave,
  ecConfigTestResult,
  ecConfigView,
  ecParticipantPage,
  ecParticipantQuery,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { EconsentService, type EcProviderFactory } from './econsent.service';

const ADD = { permission: { anyOf: ['patient:page:add'] }, scope: 'project' } as const;
const CONFIG_READ = { permission: { anyOf: ['source:config:query'] }, scope: 'project' } as const;
const CONFIG_WRITE = { permission: { allOf: ['source:config:update'] }, scope: 'project' } as const;
const tags = ['econsent'];

export function econsentRoutes({ database, config }: AppDeps, providerFor?: EcProviderFactory): RouteSpec[] {
  const svc = new EconsentService(database.db, {
    production: config.production,
    ...(providerFor ? { providerFor } : {}),
  });
  return [
    defineRoute({
      method: 'POST',
      url: '/cloud/project/managePts/ec/participant/query',
      guard: ADD,
      summary:
        "Participants of the e-consent system at the caller's sites (filter by site, status, consented, added, screening number or initials; pages of 50/100/200), each with the subject it was added as, or why it cannot be",
      tags,
      body: ecParticipantQuery,
      response: ecParticipantPage,
      handler: ({ ctx, body }) => svc.query(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/cloud/project/managePts/add/pts',
      guard: ADD,
      summary:
        'Add consented participants as subjects (JSON {participantIds}): status informed consent, first-visit date = consent date, numbered by the site rule; all or none; each participant once',
      tags,
      bodyType: 'json',
      body: ecAddRequest,
      response: ecAddResult,
      handler: ({ ctx, body }) => svc.add(ctx, body.participantIds),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/ec/config/get',
      guard: CONFIG_READ,
      summary: "The project environment's e-consent connection (the token is never returned)",
      tags,
      response: ecConfigView.nullable(),
      handler: ({ ctx }) => svc.getConfig(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/ec/config/save',
      guard: CONFIG_WRITE,
      summary:
        'Create or change the e-consent connection (dev: the development list; http: the documented adapter, its token encrypted); version-checked',
      tags,
      bodyType: 'json',
      body: ecConfigSave,
      response: ecConfigView,
      handler: ({ ctx, body }) => svc.saveConfig(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/ec/config/test',
      guard: CONFIG_WRITE,
      summary: 'Try the saved e-consent connection: how many participants it lists',
      tags,
      response: ecConfigTestResult,
      handler: ({ ctx }) => svc.testConfig(ctx),
    }),
  ];
}
