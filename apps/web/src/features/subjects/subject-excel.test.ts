import { describe, expect, it } from 'vitest';
import { currentVisitLabel, formPercent, parseImportProblems } from './subject-excel';

describe('subject Excel helpers', () => {
  it('splits `row N: column` and keeps file problems apart, sorted by row', () => {
    expect(
      parseImportProblems([
        { field: 'row 5: siteNo', message: 'b' },
        { field: 'row 3: firstVisitDate', message: 'a1' },
        { field: 'row 3: idCard', message: 'a2' },
      ]),
    ).toEqual([
      { row: 3, column: 'firstVisitDate', message: 'a1' },
      { row: 3, column: 'idCard', message: 'a2' },
      { row: 5, column: 'siteNo', message: 'b' },
    ]);
    expect(parseImportProblems([{ field: 'file', message: 'x' }])).toEqual([
      { row: null, column: 'file', message: 'x' },
    ]);
  });

  it('labels the current visit and the progress', () => {
    expect(currentVisitLabel({ currentVisitName: 'V2', formsTotal: 4 }, 'done')).toBe('V2');
    expect(currentVisitLabel({ currentVisitName: null, formsTotal: 4 }, 'done')).toBe('done');
    expect(currentVisitLabel({ currentVisitName: null, formsTotal: 0 }, 'done')).toBe('—');
    expect(formPercent(1, 3)).toBe(33);
    expect(formPercent(0, 0)).toBe(0);
  });
});
