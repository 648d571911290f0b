import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, PERMISSION_TREE } from '@esource/shared';
import {
  allLeaves,
  buildPermissionTree,
  checkedToPermissions,
  countByModule,
  permissionsToChecked,
} from './permission-tree';
import en from '../../../locales/en_US/roles.json';
import zh from '../../../locales/zh_CN/roles.json';

describe('permission tree', () => {
  const tree = buildPermissionTree((kind, key, module) => `${kind}:${module ?? ''}:${key}`);

  it('has module → resource → action with the permission as the leaf key', () => {
    expect(tree.map((n) => n.key)).toEqual(Object.keys(PERMISSION_TREE));
    const system = tree.find((n) => n.key === 'system')!;
    const user = system.children!.find((n) => n.key === 'system:user')!;
    expect(user.title).toBe('resource:system:user');
    expect(user.children!.map((n) => n.key)).toContain('system:user:query');
    expect(user.children![0]!.title).toBe('action::query');
    expect(allLeaves()).toEqual([...ALL_PERMISSIONS]);
  });

  it('turns checked keys (with fully checked parents) into a sorted list of permissions, and back', () => {
    const checked = ['system', 'system:user', 'system:user:query', 'system:user:add', 'syslog:login-log:query', 'bogus'];
    const pms = checkedToPermissions(checked);
    expect(pms).toEqual(['syslog:login-log:query', 'system:user:add', 'system:user:query']);
    // catalogue order
    expect(permissionsToChecked([...pms, 'not:a:permission'])).toEqual([
      'system:user:query',
      'system:user:add',
      'syslog:login-log:query',
    ]);
    expect(checkedToPermissions(permissionsToChecked(ALL_PERMISSIONS))).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('counts permissions per module in catalogue order', () => {
    expect(countByModule(['syslog:login-log:query', 'system:user:add', 'system:role:query'])).toEqual([
      { module: 'system', count: 2 },
      { module: 'syslog', count: 1 },
    ]);
  });

  it('every module, resource and action has a label in both languages', () => {
    for (const lang of [en, zh]) {
      for (const [m, resources] of Object.entries(PERMISSION_TREE)) {
        expect(lang.perm.module, m).toHaveProperty([m]);
        for (const [r, actions] of Object.entries(resources as Record<string, readonly string[]>)) {
          expect((lang.perm.resource as Record<string, Record<string, string>>)[m], `${m}:${r}`).toHaveProperty([r]);
          for (const a of actions) expect(lang.perm.action, a).toHaveProperty([a]);
        }
      }
    }
  });
});
