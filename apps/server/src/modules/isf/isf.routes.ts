/**
 * Investigator site file (ISF): the un-uploaded count behind the ISF dot that site users poll every 3 s
 * (spec §7). The ISF itself (required documents per site and their uploads) arrives with its own issue; until
 * then no document is required, so the count is honestly zero.
 */
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../lib/route';

export function isfRoutes(): RouteSpec[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/rf/file/getUnUploadNum',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Number of required ISF documents of the caller\'s sites not uploaded yet',
      tags: ['isf'],
      response: z.number().int(),
      handler: async () => 0,
    }),
  ];
}
