import { describe, expect, it } from 'vitest';
import { currentVisitLabel, formPercent } from './subject-excel';

describe('subject Excel helpers', () => {
  it('labels the current visit and the progress', () => {
    expect(currentVisitLabel({ currentVisitName: 'V2', formsTotal: 4 }, 'done')).toBe('V2');
    expect(currentVisitLabel({ currentVisitName: null, formsTotal: 4 }, 'done')).toBe('done');
    expect(currentVisitLabel({ currentVisitName: null, formsTotal: 0 }, 'done')).toBe('—');
    expect(formPercent(1, 3)).toBe(33);
    expect(formPercent(0, 0)).toBe(0);
  });
});
