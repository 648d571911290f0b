import { describe, expect, it } from 'vitest';
import { siteBody, siteDuplicateField, siteFormValues } from './site-form';

describe('site dialog → API', () => {
  it('adds with the organisation; an empty name is left for the server to take the organisation name', () => {
    expect(
      siteBody({ orgId: 3, siteNo: ' S01 ', name: ' ', piUserId: undefined, enabled: true }, 'add'),
    ).toEqual({ orgId: 3, siteNo: 'S01' });
  });

  it('edits with status and without the organisation', () => {
    expect(siteBody({ orgId: 3, siteNo: 'S01', name: 'A', piUserId: 8, enabled: false }, 'edit')).toEqual({
      siteNo: 'S01',
      name: 'A',
      piUserId: 8,
      status: 0,
    });
    expect(siteFormValues(undefined).enabled).toBe(true);
  });

  it('knows which field a DUPLICATE names (from its detail, whatever the message says in the user\'s language)', () => {
    expect(siteDuplicateField('DUPLICATE', [{ field: 'siteNo' }])).toBe('siteNo');
    expect(siteDuplicateField('DUPLICATE', [{ field: 'orgId' }])).toBe('orgId');
    expect(siteDuplicateField('INVALID_REFERENCE', [{ field: 'piUserId' }])).toBe('piUserId');
    expect(siteDuplicateField('VALIDATION', [{ field: 'siteNo' }])).toBeNull();
  });
});
