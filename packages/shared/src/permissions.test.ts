import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, can, effectivePermissions, isPermission, reduceForClosedProject } from './permissions';
import { visibleModules } from './modules';
import { progressGroupState } from './enums';

describe('permission catalogue', () => {
  it('holds every permission the spec names, as module:resource:action', () => {
    for (const p of [
      'project:info:query',
      'project:search:query',
      'system:role:query',
      'system:user:query',
      'patient:page:query',
      'research:page:query',
      'team:member:query',
      'syslog:audit-supervise-log:query',
      'apply:pass:query',
      'apply:unpass:query',
      'apply:ing:query',
      'padoc:all-doc:query',
      'project:info:status',
    ])
      expect(isPermission(p), p).toBe(true);
    for (const p of ALL_PERMISSIONS) expect(p.split(':')).toHaveLength(3);
    expect(new Set(ALL_PERMISSIONS).size).toBe(ALL_PERMISSIONS.length);
  });
});

describe('can', () => {
  const pms = ['a:b:query', 'a:b:add'];
  it('passes with no requirement', () => {
    expect(can(pms, undefined)).toBe(true);
    expect(can([], {})).toBe(true);
  });
  it('any-of needs one', () => {
    expect(can(pms, { anyOf: ['x:y:z' as never, 'a:b:add' as never] })).toBe(true);
    expect(can(pms, { anyOf: ['x:y:z' as never] })).toBe(false);
  });
  it('all-of needs every one', () => {
    expect(can(pms, { allOf: ['a:b:query' as never, 'a:b:add' as never] })).toBe(true);
    expect(can(pms, { allOf: ['a:b:query' as never, 'x:y:z' as never] })).toBe(false);
  });
  it('both together', () => {
    expect(can(pms, { allOf: ['a:b:query' as never], anyOf: ['x:y:z' as never] })).toBe(false);
  });
});

describe('closed project', () => {
  it('keeps system:*, query, export and project:info:status only', () => {
    const all = [...ALL_PERMISSIONS];
    const kept = reduceForClosedProject(all);
    expect(kept).toContain('system:user:add');
    expect(kept).toContain('crf:form:export');
    expect(kept).toContain('patient:page:query');
    expect(kept).toContain('project:info:status');
    expect(kept).not.toContain('project:info:update');
    expect(kept).not.toContain('crf:result:save');
    expect(effectivePermissions(all, 1)).toHaveLength(all.length);
    expect(effectivePermissions(all, 3)).toEqual(kept);
  });
});

describe('top modules', () => {
  it('follow the spec table: permissions, and Center Application only in PRO', () => {
    expect(visibleModules([], 'PRO').map((m) => m.no)).toEqual([1]);
    expect(visibleModules(['system:user:query'], 'PRO').map((m) => m.no)).toEqual([1, 2]);
    expect(visibleModules(['syslog:audit-supervise-log:query'], 'PRO').map((m) => m.no)).toEqual([1, 6]);
    expect(visibleModules(['apply:ing:query'], 'PRO').map((m) => m.no)).toEqual([1, 9]);
    expect(visibleModules(['apply:ing:query'], 'UAT').map((m) => m.no)).toEqual([1]);
  });
});

describe('progress groups', () => {
  it('is processing while any runs, otherwise all success, partial or all error; empty is hidden', () => {
    expect(progressGroupState([])).toBeNull();
    expect(progressGroupState([{ status: 1 }, { status: 3 }])).toBe('processing');
    expect(progressGroupState([{ status: 2 }, { status: 2 }])).toBe('allSuccess');
    expect(progressGroupState([{ status: 2 }, { status: 3 }])).toBe('partial');
    expect(progressGroupState([{ status: 3 }])).toBe('allError');
  });
});
