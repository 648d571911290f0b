import { describe, expect, it } from 'vitest';
import { ecAddRequest, ecConfigSave, ecParticipant, ecParticipantQuery } from './econsent.schema';

describe('e-consent contracts', () => {
  it('a participant needs an id, a screening number, a site and a known status; dates are calendar days', () => {
    expect(
      ecParticipant.safeParse({
        id: 'P1',
        screeningNo: 'S1',
        siteCode: '01',
        status: 'consented',
        consentDate: '2025-02-03',
      }).success,
    ).toBe(true);
    expect(
      ecParticipant.safeParse({ id: 'P1', screeningNo: 'S1', siteCode: '01', status: 'signed' }).success,
    ).toBe(false);
    expect(
      ecParticipant.safeParse({
        id: 'P1',
        screeningNo: 'S1',
        siteCode: '01',
        status: 'consented',
        consentDate: '2025-02-30',
      }).success,
    ).toBe(false);
  });

  it('the HTTP provider needs its address and study code; the development one nothing', () => {
    expect(ecConfigSave.safeParse({ kind: 'dev', name: 'Dev' }).success).toBe(true);
    const r = ecConfigSave.safeParse({ kind: 'http', name: 'EC', baseUrl: 'ftp://x' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['baseUrl', 'studyCode']);
    expect(
      ecConfigSave.safeParse({
        kind: 'http',
        name: 'EC',
        baseUrl: 'https://ec.example/api',
        studyCode: 'HTN-1',
      }).success,
    ).toBe(true);
  });

  it('lists pages of 50/100/200 and reads form booleans; an add takes 1..50 distinct ids', () => {
    expect(ecParticipantQuery.parse({ consented: 'true', added: '0' })).toMatchObject({
      pageSize: 50,
      consented: true,
      added: false,
    });
    expect(ecParticipantQuery.safeParse({ pageSize: 20 }).success).toBe(false);
    expect(ecAddRequest.safeParse({ participantIds: [] }).success).toBe(false);
    expect(ecAddRequest.safeParse({ participantIds: ['a', 'a'] }).success).toBe(false);
    expect(
      ecAddRequest.safeParse({ participantIds: Array.from({ length: 51 }, (_, i) => `p${i}`) }).success,
    ).toBe(false);
  });
});
