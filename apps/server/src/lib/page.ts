/** The table page result of spec §3 (pageNumber, pageSize, totalCount, content) and the offset of a page request. */
export interface PageRequest {
  pageNumber: number;
  pageSize: number;
}

/** Rows to skip for this page (pages count from 1). */
export function offsetOf(q: PageRequest): number {
  return (q.pageNumber - 1) * q.pageSize;
}

export function pageOf<T>(q: PageRequest, totalCount: number, content: T[]): PageRequest & { totalCount: number; content: T[] } {
  return { pageNumber: q.pageNumber, pageSize: q.pageSize, totalCount, content };
}
