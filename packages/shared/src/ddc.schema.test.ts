import { describe, expect, it } from 'vitest';
import {
  MICRO_CRF_DEFAULTS,
  MICRO_DC_DEFAULTS,
  maskSubjectNo,
  microDcConfigSave,
  SHARE_CODE_PATTERN,
  shareCreateRequest,
  sharePageRequest,
} from './ddc.schema';

describe('shared forms contracts', () => {
  it('masks a subject number: first character and last two kept', () => {
    expect(maskSubjectNo('01-0012')).toBe('0****12');
    expect(maskSubjectNo('DDC-AB12CD')).toBe('D*******CD');
    expect(maskSubjectNo('A12')).toBe('**2');
    expect(maskSubjectNo('7')).toBe('*7');
  });

  it('has safe defaults: masked number, no site name, sharing on for 3 days within 30', () => {
    expect(MICRO_CRF_DEFAULTS).toMatchObject({
      subjectNo: 'masked',
      showSiteName: false,
      showProjectName: true,
      language: 'zh_CN',
    });
    expect(MICRO_DC_DEFAULTS).toEqual({
      enabled: true,
      forms: 'all',
      formCodes: [],
      defaultHours: 72,
      maxHours: 720,
    });
  });

  it('bounds a link validity to 1 hour – 30 days and a default to the longest', () => {
    const key = { ptsId: 1, visitId: 2, formId: 3 };
    expect(shareCreateRequest.safeParse({ ...key, hours: 1 }).success).toBe(true);
    expect(shareCreateRequest.safeParse({ ...key, hours: 720 }).success).toBe(true);
    expect(shareCreateRequest.safeParse({ ...key, hours: 0 }).success).toBe(false);
    expect(shareCreateRequest.safeParse({ ...key, hours: 721 }).success).toBe(false);
    expect(microDcConfigSave.safeParse({ defaultHours: 100, maxHours: 48, version: 0 }).success).toBe(false);
    expect(
      microDcConfigSave.safeParse({ defaultHours: 24, maxHours: 48, version: 0, enabled: 'false' }).data
        ?.enabled,
    ).toBe(false);
  });

  it('reads list filters as forms send them', () => {
    const r = sharePageRequest.parse({ status: '', mine: 'true', sortOrder: 'ascend' });
    expect(r).toMatchObject({
      status: undefined,
      mine: true,
      sortOrder: 'asc',
      sortField: 'createTime',
      pageSize: 50,
    });
    expect(sharePageRequest.safeParse({ pageSize: 10 }).success).toBe(false);
  });

  it('recognises a code: 32 base64url characters', () => {
    expect(SHARE_CODE_PATTERN.test('A'.repeat(32))).toBe(true);
    expect(SHARE_CODE_PATTERN.test('A'.repeat(31))).toBe(false);
    expect(SHARE_CODE_PATTERN.test(`${'A'.repeat(31)}=`)).toBe(false);
  });
});
