import { z } from 'zod';
import { idListSchema, intSchema } from './common.schema';

export const progressListRequest = z.object({
  type: intSchema(1, 3),
});

/** Progress notice item (spec §3). extraInfoMap values are shown as 'done/total'. */
export const progressItem = z.object({
  id: z.number().int(),
  type: z.number().int(),
  status: z.number().int(),
  displayInformation: z.string(),
  ptsNo: z.string().nullable(),
  ptsId: z.number().int().nullable(),
  designVersionId: z.number().int().nullable(),
  extraInfoMap: z.record(z.string(), z.object({ done: z.number().int(), total: z.number().int() })).nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type ProgressItem = z.infer<typeof progressItem>;

export const progressReadRequest = z.object({ idList: idListSchema });

export const badgeInfoResponse = z.object({ unread: z.number().int(), total: z.number().int() });
