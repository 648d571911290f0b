import { useState } from 'react';
import type { TableProps } from 'antd';
import { usePaging } from '../../../components/paged-table';
import { cleaned } from './report-filters';

export interface ReportSort<K extends string> {
  sortField: K;
  sortOrder: 'asc' | 'desc';
}

/**
 * The state of a report's server-paged table: its filters (a change goes back to the first page), its sort (antd's
 * column sorter, back to the default when cleared) and its page.
 */
export function useReportTable<F extends object, K extends string, R>(defaultSort: ReportSort<K>) {
  const [filters, setFilters] = useState<F>({} as F);
  const [sort, setSort] = useState<ReportSort<K>>(defaultSort);
  const paging = usePaging();
  const change = (patch: Partial<F>) => {
    setFilters((f) => cleaned({ ...f, ...patch }));
    paging.first();
  };
  const onTable: TableProps<R>['onChange'] = (p, _f, sorter, extra) => {
    if (extra.action === 'paginate') {
      paging.onPage(p.current ?? 1, p.pageSize ?? paging.pageSize);
      return;
    }
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    setSort(s?.order ? { sortField: s.columnKey as K, sortOrder: s.order === 'ascend' ? 'asc' : 'desc' } : defaultSort);
    paging.first();
  };
  const sortOrderOf = (k: K) => (sort.sortField === k ? (sort.sortOrder === 'asc' ? ('ascend' as const) : ('descend' as const)) : null);
  const sortable = (k: K) => ({ key: k, sorter: true, sortOrder: sortOrderOf(k) });
  return { filters, sort, paging, change, onTable, sortable, filtered: Object.keys(filters).length > 0 };
}
