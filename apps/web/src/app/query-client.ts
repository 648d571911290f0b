import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api-client';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // retry once on network or server trouble, never on 4xx (the answer will not change)
        retry: (count, err) => count < 1 && (!(err instanceof ApiError) || err.code === 0 || err.code >= 500),
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
