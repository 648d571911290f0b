import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from './permissions';
import {
  featureOffFor,
  fiveFunctionString,
  fiveFunctionsOf,
  projectFeaturePermissions,
  projectFunctionOn,
} from './project-features';
import { projectInput, projectUpdate } from './projects.schema';

describe('project features (scene, configFiveFunction)', () => {
  it("'' and missing characters mean on; '0' at a position switches that function off", () => {
    expect(Object.values(fiveFunctionsOf(''))).toEqual([true, true, true, true, true]);
    expect(fiveFunctionsOf('10110')).toEqual({
      queries: true,
      verification: false,
      safety: true,
      isf: true,
      casebook: false,
    });
    expect(fiveFunctionsOf('0')).toMatchObject({ queries: false, verification: true, casebook: true });
    expect(fiveFunctionString({ safety: false })).toBe('11011');
    expect(fiveFunctionString({})).toBe('11111');
  });

  it('an E2E project with every function keeps every permission (the defaults change nothing)', () => {
    expect(projectFeaturePermissions(ALL_PERMISSIONS, { scene: 2, configFiveFunction: '' })).toEqual([
      ...ALL_PERMISSIONS,
    ]);
    expect(projectFeaturePermissions(ALL_PERMISSIONS, null)).toEqual([...ALL_PERMISSIONS]);
  });

  it('remote monitoring cuts the EDC pipeline only', () => {
    const cut = ALL_PERMISSIONS.filter(
      (p) => !projectFeaturePermissions(ALL_PERMISSIONS, { scene: 1, configFiveFunction: '' }).includes(p),
    );
    expect(cut).toEqual([
      'prolog:upload-edc-log:query',
      'prolog:upload-edc-log:export',
      'edc:sync:query',
      'edc:sync:execute',
      'edc:sync:config',
    ]);
    expect(featureOffFor('edc:sync:execute', { scene: 1, configFiveFunction: '' })).toBe('e2e');
    expect(featureOffFor('prolog:audit-action:query', { scene: 1, configFiveFunction: '' })).toBeNull();
  });

  it('each function cuts its own module only', () => {
    const p = { scene: 2, configFiveFunction: '00000' };
    const left = projectFeaturePermissions(ALL_PERMISSIONS, p);
    expect(
      left.some((x) => /^(doubt|verification|clinical|isf):/.test(x) || x.startsWith('crf:casebook:')),
    ).toBe(false);
    expect(left).toContain('crf:result:export');
    expect(left).toContain('patient:page:add');
    expect(featureOffFor('clinical:signal:query', p)).toBe('safety');
    expect(projectFunctionOn(p, 'isf')).toBe(false);
    expect(projectFunctionOn({ scene: 1, configFiveFunction: '' }, 'e2e')).toBe(false);
  });

  it('the project schemas accept five 0/1 characters at most', () => {
    expect(
      projectInput.safeParse({ no: 'A', name: 'a', scene: 1, configFiveFunction: '10110' }).success,
    ).toBe(true);
    expect(projectInput.safeParse({ no: 'A', name: 'a', scene: 1 }).data?.configFiveFunction).toBe('');
    for (const bad of ['2', '111111', 'on'])
      expect(projectUpdate.safeParse({ id: 1, version: 1, configFiveFunction: bad }).success, bad).toBe(
        false,
      );
  });
});
