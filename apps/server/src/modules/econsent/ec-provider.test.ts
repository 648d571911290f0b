import { describe, expect, it } from 'vitest';
import { DEV_PER_SITE, DEV_UNKNOWN_SITE, devParticipants } from './ec-provider';
import { EconsentService, initialsOf, refusalOf } from './econsent.service';
import type { Db } from '../../db/client';
import type { ProjectScopedContext } from '../../lib/context';

describe('the development e-consent provider', () => {
  it('is deterministic per project and environment, and ids differ between them', () => {
    const a = devParticipants(1, 'PRO', ['02', '01']);
    expect(devParticipants(1, 'PRO', ['01', '02'])).toEqual(a);
    expect(a).toHaveLength(2 * DEV_PER_SITE + 1);
    const other = new Set(devParticipants(2, 'PRO', ['01', '02']).map((p) => p.id));
    expect(a.some((p) => other.has(p.id))).toBe(false);
    expect(new Set(a.map((p) => p.id)).size).toBe(a.length);
  });

  it('has every status, consent dates only where signed, and one participant at a site the project lacks', () => {
    const a = devParticipants(1, 'PRO', ['01']);
    expect(new Set(a.map((p) => p.status))).toEqual(
      new Set(['pending', 'consented', 'withdrawn', 'declined']),
    );
    for (const p of a) {
      expect(p.consentDate === null).toBe(p.status === 'pending' || p.status === 'declined');
      expect(p.birthDate! >= '1945-01-01' && p.birthDate! < '2001-01-01').toBe(true);
      if (p.consentDate) expect(p.consentVersion).toMatch(/^ICF V2\.[01] /);
    }
    expect(a.filter((p) => p.siteCode === DEV_UNKNOWN_SITE)).toHaveLength(1);
    expect(a.some((p) => p.name === null && p.initials)).toBe(true);
  });
});

describe('adding rules', () => {
  it('initials: the system’s own, else the pinyin initials of the name', () => {
    expect(initialsOf({ initials: 'ZS', name: '李四' })).toBe('ZS');
    expect(initialsOf({ initials: null, name: '张三丰' })).toBe('ZSF');
    expect(initialsOf({ initials: null, name: null })).toBeNull();
  });

  it('refuses what has no signed consent or no open site', () => {
    const site = { id: 1, siteNo: '01', name: 'A', status: 1 };
    const p = {
      id: 'x',
      screeningNo: 'S',
      siteCode: '01',
      status: 'consented' as const,
      consentDate: '2025-01-01',
    };
    expect(refusalOf(p, site)).toBeNull();
    expect(refusalOf({ ...p, consentDate: null }, site)?.key).toBe('notConsented');
    expect(refusalOf({ ...p, status: 'withdrawn' }, site)?.key).toBe('withdrawn');
    expect(refusalOf(p, undefined)).toEqual({ key: 'unknownSite', params: { siteCode: '01' } });
    expect(refusalOf(p, { ...site, status: 0 })?.key).toBe('siteClosed');
  });
});

describe('the development provider in production', () => {
  it('is refused before anything is written', async () => {
    // any use of the database would throw: the refusal comes first
    const noDb = new Proxy(
      {},
      {
        get() {
          throw new Error('no database in this test');
        },
      },
    ) as unknown as Db;
    const svc = new EconsentService(noDb, { production: true });
    const ctx = { language: 'en_US' } as ProjectScopedContext;
    await expect(
      svc.saveConfig(ctx, { kind: 'dev', name: 'x', timeoutMs: 15_000, enabled: true }),
    ).rejects.toMatchObject({ code: 'EC_DEV_PROVIDER_PRODUCTION' });
  });
});
