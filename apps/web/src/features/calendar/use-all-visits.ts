import { useQueries, useQuery } from '@tanstack/react-query';
import { LIMITS } from '@esource/shared';
import { useSession } from '../session/session-store';
import { scheduleQuery, subjectPageQuery } from '../subjects/api/subjects-api';
import type { VisitOccurrence } from './calendar-logic';

/** The largest page the list offers: the calendar and the task list read at most this many subjects. */
export const MAX_SUBJECTS = Math.max(...LIMITS.pageSizes);

/** Every visit of the caller's subjects (optionally of one site): the subject list, then each subject's schedule. */
export function useAllVisits(siteId?: number) {
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const list = useQuery(
    subjectPageQuery(scope, { siteId, sortField: 'ptsNo', sortOrder: 'asc' }, 1, MAX_SUBJECTS, false),
  );
  const subjects = list.data?.content ?? [];
  const schedules = useQueries({ queries: subjects.map((s) => scheduleQuery(scope, s.ptsId)) });
  const visits: VisitOccurrence[] = [];
  subjects.forEach((s, i) => {
    for (const v of schedules[i]?.data ?? [])
      visits.push({
        ptsId: s.ptsId,
        ptsNo: s.ptsNo,
        siteId: s.siteId,
        visitId: v.visitId,
        unscheduledId: v.unscheduledId,
        name: v.name,
        code: v.code,
        planned: v.planned,
        start: v.start,
        end: v.end,
        state: v.state,
      });
  });
  return {
    visits,
    subjects,
    total: list.data?.totalCount ?? 0,
    loading: list.isLoading || schedules.some((q) => q.isLoading),
    error: list.error?.message ?? schedules.find((q) => q.error)?.error?.message ?? null,
  };
}
