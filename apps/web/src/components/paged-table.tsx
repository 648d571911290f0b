/**
 * The table of every list page: the current page of a server-paged query, its loading state, an empty state that
 * says whether filters hide rows, 50/100/200 paging, and — when the first load fails — a retry instead of a table.
 */
import type { ReactNode } from 'react';
import { Button, Empty, Result, Table } from 'antd';
import type { TableProps } from 'antd';
import { tablePagination } from '../lib/pagination';

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
  return (
    <Table<T>
      size="middle"
      {...table}
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
