import { z } from 'zod';
import { ENVS } from './enums';
import { LIMITS } from './constants';

/** Success envelope (spec §8, DESIGN §3.5). */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ code: z.literal(200), status: z.literal('1'), data });
}

export const errorEnvelope = z.object({
  code: z.number().int(),
  status: z.literal('0'),
  message: z.string(),
  errorCode: z.string(),
  requestId: z.string(),
  detail: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

export const envSchema = z.enum(ENVS);

/** A positive integer id; form bodies send strings, so coerce. */
export const idSchema = z.coerce.number().int().positive();

/**
 * A list of ids as sent by a form (`idList=1&idList=2`, `idList=1,2`) or JSON (`[1,2]`).
 * A single value becomes a one-element list.
 */
export const idListSchema = z.preprocess((v: unknown): unknown => {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return v as unknown[];
  if (typeof v === 'string') return v.split(',').filter((s) => s.trim() !== '');
  return [v];
}, z.array(idSchema).max(10_000));

/** Request for a page of a table (spec §3, §9: pages 50/100/200, first page 1). */
export const pageRequest = z.object({
  pageNumber: z.coerce.number().int().min(LIMITS.firstPage).default(LIMITS.firstPage),
  pageSize: z.coerce
    .number()
    .int()
    .refine((n) => (LIMITS.pageSizes as readonly number[]).includes(n), { message: 'pageSize must be 50, 100 or 200' })
    .default(LIMITS.defaultPageSize),
});

/** Table page result (spec §3). */
export function pageResult<T extends z.ZodType>(row: T) {
  return z.object({
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
    totalCount: z.number().int(),
    content: z.array(row),
  });
}

/** The request headers every call carries (spec §7). */
export const REQUEST_HEADERS = ['token', 'proId', 'proSiteId', 'proType', 'language', 'product', 'source', 'orgId'] as const;
