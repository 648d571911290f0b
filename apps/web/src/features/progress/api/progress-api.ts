import { PROGRESS_TYPE, type LoginType, type ProgressItem, type ProgressType } from '@esource/shared';
import { api } from '../../../lib/api-client';

export const progressApi = {
  list: (type: ProgressType) =>
    api.postJson<ProgressItem[]>('/proProgressDisplay/list', { type }, { silent: true }),
  markRead: (idList: number[]) =>
    api.post<null>('/proProgressDisplay/updateIsReadByIdList', { idList: idList.join(',') }),
  /** GET /rf/file/getUnUploadNum: count behind the ISF dot (site users, every 3 s) */
  unUploadNum: () => api.get<number>('/rf/file/getUnUploadNum', undefined, { silent: true }),
};

/**
 * Which progress types a login type polls (spec §6, §7): site users (3) source upload/match (1) and subject
 * extraction (2); centre users (1) EDC sync (3); others none.
 */
export function progressTypesFor(loginType: LoginType | null): ProgressType[] {
  if (loginType === 3) return [PROGRESS_TYPE.sourceUpload, PROGRESS_TYPE.extraction];
  if (loginType === 1) return [PROGRESS_TYPE.edcSync];
  return [];
}

/**
 * The View link of a row (spec §2): subject pages carry ptsNo, ptsId, designVersionId and activeKey=pts360.
 * Site users go to the subject detail, centre users to the subject file.
 */
export function progressViewLink(item: ProgressItem, loginType: LoginType | null): string | null {
  if (item.ptsId === null) return null;
  const path = loginType === 3 ? '/project/ptsDetail' : '/project/SickFile';
  const q = new URLSearchParams();
  if (item.ptsNo) q.set('ptsNo', item.ptsNo);
  q.set('ptsId', String(item.ptsId));
  if (item.designVersionId !== null) q.set('designVersionId', String(item.designVersionId));
  q.set('activeKey', 'pts360');
  return `${path}?${q.toString()}`;
}
