import type { ReactNode } from 'react';
import type { TablePaginationConfig } from 'antd';
import { LIMITS } from '@esource/shared';

/**
 * The paging of every list page (spec: 50/100/200 per page, size changer, total). Choosing another size starts
 * again at the first page.
 */
export function tablePagination(o: {
  page: number;
  pageSize: number;
  total: number;
  showTotal: (total: number) => ReactNode;
  onChange?: (page: number, pageSize: number) => void;
}): TablePaginationConfig {
  const onChange = o.onChange;
  return {
    current: o.page,
    pageSize: o.pageSize,
    total: o.total,
    showSizeChanger: true,
    pageSizeOptions: LIMITS.pageSizes.map(String),
    showTotal: o.showTotal,
    ...(onChange ? { onChange: (p: number, s: number) => onChange(s !== o.pageSize ? LIMITS.firstPage : p, s) } : {}),
  };
}
