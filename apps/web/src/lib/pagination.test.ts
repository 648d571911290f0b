import { describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@esource/shared';
import { tablePagination } from './pagination';

describe('tablePagination', () => {
  it('offers the spec page sizes with a size changer and the total', () => {
    const p = tablePagination({ page: 3, pageSize: 100, total: 1234, showTotal: (n) => `${n} rows` });
    expect(p).toMatchObject({ current: 3, pageSize: 100, total: 1234, showSizeChanger: true, pageSizeOptions: ['50', '100', '200'] });
    expect(p.onChange).toBeUndefined();
  });
  it('moves between pages, and starts again at the first page when the size changes', () => {
    const onChange = vi.fn();
    const p = tablePagination({ page: 3, pageSize: 50, total: 1234, showTotal: String, onChange });
    p.onChange!(4, 50);
    p.onChange!(3, 200);
    expect(onChange.mock.calls).toEqual([
      [4, 50],
      [LIMITS.firstPage, 200],
    ]);
  });
});
