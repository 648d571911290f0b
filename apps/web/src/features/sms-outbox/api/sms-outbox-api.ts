import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { SmsOutboxPage } from '@esource/shared';
import { api } from '../../../lib/api-client';

/** The development SMS outbox (server: apps/server/src/modules/sms; contract: shared profile.schema). */
export const smsOutboxKey = ['smsOutbox'] as const;

export interface SmsOutboxFilter {
  pageNumber: number;
  pageSize: number;
  phone?: string;
}

export const smsOutboxQuery = (f: SmsOutboxFilter) =>
  queryOptions({
    queryKey: [...smsOutboxKey, f] as const,
    queryFn: () => api.get<SmsOutboxPage>('/system/sms/outbox', { ...f }),
    placeholderData: keepPreviousData,
  });
