/**
 * The queue self-test: a job that counts through N steps, reporting 'done/total' to a progress item, and fails
 * on purpose when asked. It exercises the whole path (queue → worker → progress panel) in tests and browser
 * journeys; it is registered only with ESOURCE_TEST_HOOKS=1 and is not part of the product.
 */
import { z } from 'zod';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config/config';
import type { JobRunner } from './job-runner';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { intSchema, type ProgressType } from '@esource/shared';

export const SELF_TEST_JOB = 'system.self-test';

interface SelfTestData {
  steps: number;
  stepMs: number;
  fail: boolean;
}

export function registerSelfTestJob(jobs: JobRunner, config: Config): void {
  if (!config.testHooks) return;
  jobs.define<SelfTestData>(
    SELF_TEST_JOB,
    async (data, ctx) => {
      for (let i = 1; i <= data.steps; i++) {
        await sleep(data.stepMs);
        await ctx.report(i, data.steps);
      }
      if (data.fail) throw new Error('self-test asked to fail');
    },
    { retryLimit: 0 },
  );
}

export function selfTestRoutes({ config, jobs }: AppDeps): RouteSpec[] {
  if (!config.testHooks) return [];
  return [
    defineRoute({
      method: 'POST',
      url: '/test/jobs/start',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Test hook: start a self-test job with a progress item for the caller',
      tags: ['test'],
      body: z.object({
        type: intSchema(1, 3).default(2),
        steps: intSchema(1, 100).default(5),
        stepMs: intSchema(0, 10_000).default(500),
        fail: z.preprocess((v) => v === true || v === 'true' || v === '1', z.boolean()).default(false),
        ptsNo: z.string().max(50).optional(),
        ptsId: intSchema().optional(),
        label: z.string().max(200).default('Self-test'),
      }),
      response: z.object({ jobId: z.string().nullable(), progressItemId: z.number().int().nullable() }),
      handler: ({ ctx, body }) =>
        jobs.enqueue(
          SELF_TEST_JOB,
          { steps: body.steps, stepMs: body.stepMs, fail: body.fail } satisfies SelfTestData,
          {
            progress: {
              userId: ctx.user.id,
              env: ctx.env,
              projectId: ctx.project.id,
              siteId: ctx.siteId,
              type: body.type as ProgressType,
              displayInformation: body.label,
              ptsNo: body.ptsNo ?? null,
              ptsId: body.ptsId ?? null,
            },
          },
        ),
    }),
  ];
}
