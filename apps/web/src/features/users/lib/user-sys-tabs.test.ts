import { describe, expect, it } from 'vitest';
import { activeTab, visibleTabs } from './user-sys-tabs';

describe('module 2 tabs', () => {
  it('shows each tab only with its query permission', () => {
    expect(visibleTabs(() => true)).toEqual(['users', 'roles', 'groups', 'orgs']);
    expect(visibleTabs((pm) => pm === 'system:role:query')).toEqual(['roles']);
    expect(visibleTabs((pm) => pm === 'system:user:query' || pm === 'system:org:query')).toEqual([
      'users',
      'orgs',
    ]);
    expect(visibleTabs(() => false)).toEqual([]);
  });
  it('opens the asked tab, else the route’s tab, else the first one the user may see', () => {
    const all = visibleTabs(() => true);
    expect(activeTab(all, 'groups', 'userSys')).toBe('groups');
    expect(activeTab(all, null, 'deptDict')).toBe('orgs');
    expect(activeTab(all, 'nonsense', 'roleSys')).toBe('roles');
    expect(activeTab(['roles'], 'users', 'userSys')).toBe('roles');
    expect(activeTab(['users'], null, 'roleSys')).toBe('users');
    expect(activeTab([], null, 'userSys')).toBeUndefined();
  });
});
