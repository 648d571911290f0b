import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '@esource/shared';
import zhRoutes from '../locales/zh_CN/routes.json';
import enRoutes from '../locales/en_US/routes.json';
import { ROUTES } from '../lib/routing/route-table';
import { pageFor, ROUTE_PAGES } from './route-pages';
import {
  breadcrumbsFor,
  listKindFor,
  matchRoute,
  menuFor,
  moduleTabs,
  routeAllowed,
  type AccessContext,
} from '../lib/routing/route-access';

/** Every route spec §2 names (inside the layout and standalone), plus the top-module routes. */
const SPEC_PATHS = [
  '/overview',
  '/project/ProjectManage',
  '/project/centerPtsList',
  '/project/craPtsList',
  '/project/sickLoop',
  '/project/centerList',
  '/project/icrc-source',
  '/project/sourceFile',
  '/project/SickFile',
  '/project/dashboard/SickFile',
  '/project/ptsFolder',
  '/project/ptsDetail',
  '/project/visitTimeline',
  '/project/visitTimeline/taskList',
  '/project/SickFile/gatherPtsData/detail',
  '/project/gatherData/detail',
  '/project/uploadTuomin',
  '/project/pdfTuomin',
  '/project/message/uploadTuomin',
  '/project/calendar',
  '/project/message',
  '/project/message/sickRecordMsg',
  '/project/doubtList',
  '/project/user-manage',
  '/ocrConfig/same',
  '/textConfig/same',
  '/project/ocrConfig/same',
  '/project/textConfig/same',
  '/project/ocrProConfig',
  '/project/dataReport',
  '/project/researchFile',
  '/project/researchFile/imageTuomin',
  '/project/researchFile/pdfTuomin',
  '/project/edcReportDetail',
  '/project/medication',
  '/project/medicationDetail',
  '/project/reports',
  '/project/clinical',
  '/project/clinical/2',
  '/project/clinical/3',
  '/project/ae/6',
  '/project/cm/9',
  '/project/pr/13',
  '/project/mh/14',
  '/project/hiss/15',
  '/project/signalReport',
  '/project/verification',
  '/project/failedPtsList',
  '/project/auditLogs',
  '/user-info',
  '/edc-link',
  '/login',
  '/site/login',
  '/ae/login',
  '/project/microCrfConfig',
  '/project/microDCConfig',
  '/privacy',
  '/site/privacy',
  '/ae/privacy',
  '/DDC/share',
  '/s/:code',
  '/agreement',
  '/person',
  '/404',
  '/system/userSys',
  '/system/auditTrack',
  '/centerApply',
  '/system/centerApply',
];

const ctx = (pms: string[], loginType: 1 | 2 | 3 | 4, env: 'DEV' | 'UAT' | 'PRO' = 'PRO'): AccessContext => ({
  pms: new Set(pms),
  loginType,
  env,
});

describe('route table', () => {
  it('holds every route of spec §2, once', () => {
    const paths = ROUTES.map((r) => r.path);
    for (const p of SPEC_PATHS) expect(paths, p).toContain(p);
    expect(new Set(paths).size).toBe(paths.length);
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length);
  });

  it('names only permissions of the catalogue', () => {
    const known = new Set<string>(ALL_PERMISSIONS);
    for (const r of ROUTES)
      for (const p of [...(r.anyOf ?? []), ...(r.allOf ?? [])])
        expect(known.has(p), `${r.id}: ${p}`).toBe(true);
  });

  it('has a title in both languages for every route, and says what each placeholder will hold', () => {
    const zh = zhRoutes as Record<string, unknown> & { will: Record<string, string> };
    const en = enRoutes as Record<string, unknown> & { will: Record<string, string> };
    for (const r of ROUTES) {
      expect(typeof zh[r.id], r.id).toBe('string');
      expect(typeof en[r.id], r.id).toBe('string');
      if (r.placeholder) {
        expect(zh.will[r.id], r.id).toBeTruthy();
        expect(en.will[r.id], r.id).toBeTruthy();
      }
    }
  });

  it('every non-redirect route has a lazy page; standalone routes have no side bar', () => {
    for (const r of ROUTES) {
      if (!r.redirectTo) expect(pageFor(r), r.id).toBeTypeOf('function');
      if (!r.shell) expect(r.sideBar).toBe(false);
    }
  });

  it('binds pages only to routes of the table that are neither placeholders nor redirects', () => {
    for (const id of Object.keys(ROUTE_PAGES)) {
      const r = ROUTES.find((x) => x.id === id);
      expect(r, id).toBeDefined();
      expect(r?.placeholder, id).toBeFalsy();
      expect(r?.redirectTo, id).toBeUndefined();
    }
  });

  it('matches paths, parameters, and nothing for unknown paths', () => {
    expect(matchRoute('/project/ae/6')?.id).toBe('ae');
    expect(matchRoute('/s/abc123')?.id).toBe('sharedForm');
    expect(matchRoute('/overview/')?.id).toBe('overview');
    expect(matchRoute('/nope')).toBeUndefined();
  });

  it('chooses subject lists by login type and the build flag (spec §2 menu visibility)', () => {
    const pms = ['patient:page:query', 'syslog:audit-supervise-log:query'];
    const ids = (lt: 1 | 2 | 3) =>
      menuFor(1, true, ctx(pms, lt)).flatMap((n) =>
        n.kind === 'item' ? [n.id] : n.children.map((c) => c.id),
      );
    expect(ids(1)).toContain('centerPtsList');
    expect(ids(1)).not.toContain('craPtsList');
    expect(ids(1)).not.toContain('auditLogs');
    expect(ids(2)).toContain('craPtsList');
    expect(ids(2)).toContain('auditLogs');
    expect(ids(2)).not.toContain('centerPtsList');
    expect(ids(3)).toEqual(['sickLoop']);
    expect(listKindFor(1, 'false')).toBe('site');
    expect(listKindFor(3, 'true')).toBe('centre');
    expect(listKindFor(3, undefined)).toBe('site');
  });

  it('filters routes by pms (any-of) and login type', () => {
    const sickFile = matchRoute('/project/SickFile')!;
    expect(routeAllowed(sickFile, ctx(['padoc:certified:query'], 1))).toBe(true);
    expect(routeAllowed(sickFile, ctx(['patient:page:query'], 1))).toBe(false);
    const edcLink = matchRoute('/edc-link')!;
    expect(routeAllowed(edcLink, ctx([], 1))).toBe(true);
    expect(routeAllowed(edcLink, ctx([], 2))).toBe(false);
  });

  it('shows module tabs by permission, Center Application only in PRO', () => {
    const pms = ['system:user:query', 'syslog:audit-track:query', 'apply:ing:query'];
    expect(moduleTabs(ctx(pms, 1, 'PRO')).map((m) => m.no)).toEqual([1, 2, 6, 9]);
    expect(moduleTabs(ctx(pms, 1, 'UAT')).map((m) => m.no)).toEqual([1, 2, 6]);
    expect(moduleTabs(ctx([], 1)).map((m) => m.no)).toEqual([1]);
    expect(routeAllowed(matchRoute('/system/centerApply')!, ctx(pms, 1, 'DEV'))).toBe(false);
  });

  it('derives breadcrumbs from the table', () => {
    const c = ctx(['patient:page:query', 'padoc:all-doc:query', 'source:extract:query'], 1);
    const crumbs = breadcrumbsFor(matchRoute('/project/SickFile/gatherPtsData/detail')!, c, true).map(
      (x) => x.id,
    );
    expect(crumbs).toEqual(['overview', 'project', 'centerPtsList', 'sickFile', 'gatherPtsDataDetail']);
    expect(breadcrumbsFor(matchRoute('/system/userSys')!, c, false).map((x) => x.id)).toEqual([
      'module.2',
      'userSys',
    ]);
  });
});
