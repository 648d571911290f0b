import { describe, expect, it } from 'vitest';
import { columnsScrollWidth, FLEX_COLUMN_MIN } from './paged-table';

describe('columnsScrollWidth', () => {
  it('sums the widths, counting a column without one as FLEX_COLUMN_MIN, and group columns by their children', () => {
    expect(
      columnsScrollWidth([
        { key: 'a', width: 130 },
        { key: 'b' },
        {
          key: 'g',
          title: 'group',
          children: [
            { key: 'c', width: 90 },
            { key: 'd', width: '20%' },
          ],
        },
        { key: 'actions', width: 110, fixed: 'right' },
      ]),
    ).toBe(130 + FLEX_COLUMN_MIN + 90 + FLEX_COLUMN_MIN + 110);
    expect(columnsScrollWidth(undefined)).toBe(0);
  });
});
