import { describe, expect, it } from 'vitest';
import { REASON_REQUIRED_STATUSES } from '@esource/shared';
import {
  allowedTargets,
  intParam,
  LIVE_STATUSES,
  rangeProblem,
  reasonRequired,
  STATUS_COLOR,
} from './subject-logic';

describe('subject status menu', () => {
  it('offers only the documented transitions', () => {
    expect(allowedTargets(7)).toEqual([1, 8]);
    expect(allowedTargets(1)).toEqual([3, 2, 8]);
    expect(allowedTargets(2)).toEqual([1]);
    expect(allowedTargets(3)).toEqual([5, 4, 6, 8]);
    expect(allowedTargets(6)).toEqual([5, 4, 8]);
    expect(allowedTargets(5)).toEqual([6]);
  });
  it('offers nothing from final statuses, the recycle bin or unknown values', () => {
    expect(allowedTargets(4)).toEqual([]);
    expect(allowedTargets(8)).toEqual([]);
    expect(allowedTargets(0)).toEqual([]);
    expect(allowedTargets(42)).toEqual([]);
  });
  it('asks a reason for screening failed, dropped out and quit only', () => {
    expect(LIVE_STATUSES.filter(reasonRequired).sort()).toEqual([...REASON_REQUIRED_STATUSES].sort());
    expect(reasonRequired(3)).toBe(false);
  });
  it('has a colour for every status', () => {
    for (const s of [0, ...LIVE_STATUSES]) expect(STATUS_COLOR[s]).toBeTruthy();
  });
});

describe('first-visit date range', () => {
  it('accepts up to 90 days and incomplete ranges', () => {
    expect(rangeProblem('2026-01-01', '2026-04-01')).toBeNull();
    expect(rangeProblem('2026-01-01', undefined)).toBeNull();
    expect(rangeProblem(undefined, undefined)).toBeNull();
  });
  it('refuses more than 90 days and a start after the end', () => {
    expect(rangeProblem('2026-01-01', '2026-04-02')).toBe('span');
    expect(rangeProblem('2026-02-01', '2026-01-31')).toBe('order');
  });
});

describe('intParam', () => {
  it('reads positive integers only', () => {
    expect(intParam('3', 1)).toBe(3);
    expect(intParam(null, 1)).toBe(1);
    expect(intParam('-2', 1)).toBe(1);
    expect(intParam('x', 50)).toBe(50);
  });
});
