import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { LIMITS } from '@esource/shared';

/** The list page kept in the URL as `pageNumber` (spec §2 guard, §9: first page 1). */
export function usePageParam(): [number, (p: number) => void] {
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get('pageNumber'));
  const page = Number.isInteger(raw) && raw >= LIMITS.firstPage ? raw : LIMITS.firstPage;
  const setPage = useCallback(
    (p: number) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set('pageNumber', String(p));
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [page, setPage];
}
