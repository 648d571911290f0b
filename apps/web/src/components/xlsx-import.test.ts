import { describe, expect, it } from 'vitest';
import { parseImportProblems } from './xlsx-import';

describe('parseImportProblems', () => {
  it('splits `row N: column`, keeps problems of the whole file apart, sorted by row in the server order', () => {
    expect(
      parseImportProblems([
        { field: 'row 5: siteNo', message: 'b' },
        { field: 'row 3: firstVisitDate', message: 'a1' },
        { field: 'row 3: idCard', message: 'a2' },
        { field: 'file', message: 'not an xlsx' },
      ]),
    ).toEqual([
      { row: null, column: 'file', message: 'not an xlsx' },
      { row: 3, column: 'firstVisitDate', message: 'a1' },
      { row: 3, column: 'idCard', message: 'a2' },
      { row: 5, column: 'siteNo', message: 'b' },
    ]);
  });
});
