import { describe, expect, it } from 'vitest';
import { sessionStore } from './session-store';
import { sessionHeaders } from './session-headers';

describe('session headers (spec §7)', () => {
  it('sends source iCRC / iCRA on the combined product by login type', () => {
    const s = sessionStore.get();
    expect(sessionHeaders({ ...s, variant: 'main', loginType: 1 }).source).toBe('iCRC');
    expect(sessionHeaders({ ...s, variant: 'main', loginType: 2 }).source).toBe('iCRA');
    expect(sessionHeaders({ ...s, variant: 'site', loginType: 3 }).source).toBeNull();
  });
  it('carries token, project, environment and language', () => {
    const s = sessionStore.get();
    const h = sessionHeaders({
      ...s,
      token: 'x',
      project: { id: 4, no: 'P', name: 'n', status: 1 },
      env: 'DEV',
      language: 'en_US',
      orgId: 2,
      proSiteId: 5,
    });
    expect(h).toMatchObject({
      token: 'x',
      proId: 4,
      proType: 'DEV',
      language: 'en_US',
      orgId: 2,
      proSiteId: 5,
      product: 'esource',
    });
  });
});
