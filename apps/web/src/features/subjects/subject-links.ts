import type { SubjectRow } from '@esource/shared';

/** The detail page of a subject: /project/ptsDetail for site users, /project/SickFile otherwise (spec §2 progress links). */
export function subjectDetailPath(
  s: Pick<SubjectRow, 'ptsId' | 'ptsNo' | 'designVersionId'>,
  loginType: number | null,
  extra: Record<string, string | number> = {},
): string {
  const q = new URLSearchParams({
    ptsNo: s.ptsNo,
    ptsId: String(s.ptsId),
    ...(s.designVersionId ? { designVersionId: String(s.designVersionId) } : {}),
    activeKey: 'pts360',
  });
  for (const [k, v] of Object.entries(extra)) q.set(k, String(v));
  return `${loginType === 3 ? '/project/ptsDetail' : '/project/SickFile'}?${q.toString()}`;
}
