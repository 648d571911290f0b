import { describe, expect, it } from 'vitest';
import type { ProgressItem } from '@esource/shared';
import { progressTypesFor, progressViewLink } from './api/progress-api';

const item: ProgressItem = {
  id: 1,
  type: 2,
  status: 1,
  displayInformation: 'x',
  ptsNo: 'S-001',
  ptsId: 12,
  designVersionId: 3,
  extraInfoMap: null,
  createTime: '',
  updateTime: '',
};

describe('progress panel rules (spec §2, §6, §7)', () => {
  it('polls types 1 and 2 for site users, 3 for centre users', () => {
    expect(progressTypesFor(3)).toEqual([1, 2]);
    expect(progressTypesFor(1)).toEqual([3]);
    expect(progressTypesFor(2)).toEqual([]);
  });
  it('View links carry ptsNo, ptsId, designVersionId and activeKey=pts360', () => {
    expect(progressViewLink(item, 3)).toBe(
      '/project/ptsDetail?ptsNo=S-001&ptsId=12&designVersionId=3&activeKey=pts360',
    );
    expect(progressViewLink(item, 1)).toBe(
      '/project/SickFile?ptsNo=S-001&ptsId=12&designVersionId=3&activeKey=pts360',
    );
    expect(progressViewLink({ ...item, ptsId: null }, 1)).toBeNull();
  });
});
