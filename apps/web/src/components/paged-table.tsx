/**
 * The table of every list page: the current page of a server-paged query, its loading state, an empty state that
 * says whether filters hide rows, 50/100/200 paging, and — when the first load fails — a retry instead of a table.
 */
import { useState, type ReactNode } from 'react';
import { LIMITS } from '@esource/shared';
import { Button, Empty, Result, Table } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { tablePagination } from '../lib/pagination';
import { usePageParam } from '../lib/use-page-param';

/** The width a column without one is given in the scroll width (it takes more when the page is wider). */
export const FLEX_COLUMN_MIN = 200;

/**
 * The table's scroll width: the sum of its columns' widths, a column without a width counted as FLEX_COLUMN_MIN.
 * With fixed layout a column is never narrower than its width, so a long unbroken value (a 100-character project
 * name) wraps or ends in an ellipsis inside its column instead of squeezing the others, and a `fixed: 'right'`
 * action column never covers another column: the table scrolls sideways when the page is narrower than the sum.
 */
export function columnsScrollWidth<T>(columns: TableColumnsType<T> | undefined): number {
  return (columns ?? []).reduce((sum, c) => {
    if ('children' in c && c.children) return sum + columnsScrollWidth(c.children);
    return sum + (typeof c.width === 'number' ? c.width : FLEX_COLUMN_MIN);
  }, 0);
}

export interface PagedQuery<T> {
  data?: { content: T[]; totalCount: number } | undefined;
  isError: boolean;
  error: Error | null;
  isFetching: boolean;
  refetch: () => unknown;
}

export type PagedTableProps<T> = Omit<TableProps<T>, 'dataSource' | 'loading' | 'pagination' | 'locale'> & {
  query: PagedQuery<T>;
  page: number;
  pageSize: number;
  /** page or size chosen (a new size comes with page 1); absent when the table's onChange handles paging */
  onPage?: (page: number, pageSize: number) => void;
  /** what an empty page says */
  empty: ReactNode;
  texts: { loadFailed: string; retry: string; total: (count: number) => string };
};

export function PagedTable<T extends object>({
  query,
  page,
  pageSize,
  onPage,
  empty,
  texts,
  ...table
}: PagedTableProps<T>) {
  if (query.isError && !query.data) {
    return (
      <Result
        status="warning"
        title={texts.loadFailed}
        subTitle={query.error?.message}
        extra={<Button onClick={() => void query.refetch()}>{texts.retry}</Button>}
      />
    );
  }
  const x = columnsScrollWidth(table.columns) + (table.rowSelection ? 48 : 0);
  return (
    <Table<T>
      size="middle"
      tableLayout="fixed"
      {...table}
      scroll={{ ...table.scroll, x: Math.max(x, typeof table.scroll?.x === 'number' ? table.scroll.x : 0) }}
      dataSource={query.data?.content ?? []}
      loading={query.isFetching}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} /> }}
      pagination={tablePagination({
        page,
        pageSize,
        total: query.data?.totalCount ?? 0,
        showTotal: texts.total,
        ...(onPage ? { onChange: onPage } : {}),
      })}
    />
  );
}

/**
 * The page state of a page's main list, its page number kept in the URL as `pageNumber` (spec §2: a link or a reload
 * opens the same page); otherwise as usePaging. For lists in tabs and drawers, which would share the parameter, use
 * usePaging.
 */
export function useUrlPaging() {
  const [pageNumber, setPageNumber] = usePageParam();
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  return paging(pageNumber, setPageNumber, pageSize, setPageSize);
}

/** A new size starts again at page 1; `first()` goes back to page 1. */
function paging(
  pageNumber: number,
  setPageNumber: (p: number) => void,
  pageSize: number,
  setPageSize: (s: number) => void,
) {
  return {
    pageNumber,
    pageSize,
    onPage: (p: number, s: number) => {
      setPageNumber(s !== pageSize ? LIMITS.firstPage : p);
      setPageSize(s);
    },
    first: () => setPageNumber(LIMITS.firstPage),
  };
}

/**
 * The page state of a PagedTable: page number and size (50 by default); a new size starts again at page 1, and
 * `first()` goes back to page 1 (after a filter change).
 */
export function usePaging() {
  const [pageNumber, setPageNumber] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  return paging(pageNumber, setPageNumber, pageSize, setPageSize);
}
