import { describe, expect, it } from 'vitest';
import type { ProjectDetail } from '@esource/shared';
import { ApiError } from '../../lib/api-client';
import {
  EMPTY_PROJECT,
  functionsOf,
  functionsString,
  projectBody,
  projectFormValues,
  projectPatch,
  serverProblems,
} from './project-form';

const P: ProjectDetail = {
  id: 7,
  no: 'ST-01',
  name: 'Study one',
  status: 1,
  scene: 1,
  fileConfirmConfig: 0,
  autoPrefillDisabled: false,
  uuidNo: 'u',
  configFiveFunction: '',
  version: 3,
  createTime: '2026-01-01T00:00:00Z',
  updateTime: '2026-01-01T00:00:00Z',
  roleCode: 'DM',
};

describe('project dialog → API', () => {
  it('creates with trimmed texts and fileConfirmConfig as 0/1', () => {
    expect(
      projectBody({ ...EMPTY_PROJECT, no: ' N1 ', name: ' Name ', scene: 2, fileConfirmConfig: true }),
    ).toEqual({
      no: 'N1',
      name: 'Name',
      scene: 2,
      fileConfirmConfig: 1,
      autoPrefillDisabled: false,
      configFiveFunction: '',
    });
  });

  it('updates only what changed, with the version the dialog was opened with', () => {
    const v = { ...projectFormValues(P), name: 'Study one (renamed)', autoPrefillDisabled: true };
    expect(projectPatch(P, v)).toEqual({
      id: 7,
      version: 3,
      name: 'Study one (renamed)',
      autoPrefillDisabled: true,
    });
    expect(projectPatch(P, projectFormValues(P))).toBeNull();
    expect(projectPatch(P, { ...projectFormValues(P), no: ' ST-01 ' })).toBeNull();
  });
});

describe('the five functions (configFiveFunction)', () => {
  it("all on is '' (the default); each one off is its character 0", () => {
    expect(functionsString(['queries', 'verification', 'safety', 'isf', 'casebook'])).toBe('');
    expect(functionsString(['queries', 'safety', 'isf'])).toBe('10110');
    expect(functionsOf('10110')).toEqual(['queries', 'safety', 'isf']);
    expect(functionsOf('')).toHaveLength(5);
  });

  it('a project stored as 11111 or as a shorter string is unchanged when the dialog saves nothing', () => {
    expect(
      projectPatch(
        { ...P, configFiveFunction: '11111' },
        projectFormValues({ ...P, configFiveFunction: '11111' }),
      ),
    ).toBeNull();
    const v = {
      ...projectFormValues({ ...P, configFiveFunction: '1' }),
      functions: ['queries', 'verification', 'safety', 'isf'] as const,
    };
    expect(projectPatch({ ...P, configFiveFunction: '1' }, { ...v, functions: [...v.functions] })).toEqual({
      id: 7,
      version: 3,
      configFiveFunction: '11110',
    });
  });
});

describe('server problems on the form', () => {
  it('puts VALIDATION detail on the named fields', () => {
    const e = new ApiError('x', 400, 'VALIDATION', null, [
      { field: 'no', message: 'too long' },
      { field: 'other', message: 'odd' },
    ]);
    expect(serverProblems(e, ['no', 'name'])).toEqual({
      fields: [{ name: 'no', errors: ['too long'] }],
      general: 'other: odd',
      errorCode: 'VALIDATION',
    });
  });

  it('finds the field a DUPLICATE names at the start of its message', () => {
    const e = new ApiError("no 'ST-01' already exists", 409, 'DUPLICATE');
    expect(serverProblems(e, ['no', 'name']).fields).toEqual([
      { name: 'no', errors: ["no 'ST-01' already exists"] },
    ]);
  });

  it('keeps a stale write as a general message with its code', () => {
    const e = new ApiError('dm changed this data', 409, 'STALE_WRITE');
    expect(serverProblems(e, ['no'])).toEqual({
      fields: [],
      general: 'dm changed this data',
      errorCode: 'STALE_WRITE',
    });
  });
});
