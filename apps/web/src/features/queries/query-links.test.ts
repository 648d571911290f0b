import { describe, expect, it } from 'vitest';
import { queryListPath, readQueryListTarget } from './query-links';

const read = (path: string) => readQueryListTarget(new URL(path, 'http://x').searchParams);

describe('the query list address', () => {
  it('round-trips a subject and visit filter', () => {
    const path = queryListPath({
      status: 2,
      ptsId: 12,
      ptsNo: '01-003',
      visitId: 7,
      unscheduledId: 0,
      visit: 'V1 Screening',
    });
    expect(path).toBe(
      '/project/doubtList?status=2&ptsId=12&ptsNo=01-003&visitId=7&unscheduledId=0&visit=V1+Screening',
    );
    expect(read(path)).toEqual({
      status: 2,
      ptsId: 12,
      ptsNo: '01-003',
      visitId: 7,
      unscheduledId: 0,
      visit: 'V1 Screening',
    });
    expect(queryListPath({})).toBe('/project/doubtList');
  });

  it('leaves out what is malformed, and a visit without its subject', () => {
    expect(read('/project/doubtList?status=4&ptsId=abc&visitId=3')).toEqual({});
    expect(read('/project/doubtList?ptsId=0')).toEqual({});
    expect(read('/project/doubtList?ptsId=5&visitId=1e3')).toEqual({ ptsId: 5, ptsNo: undefined });
    expect(read('/project/doubtList?ptsId=5&visitId=3')).toEqual({
      ptsId: 5,
      ptsNo: undefined,
      visitId: 3,
      unscheduledId: 0,
      visit: undefined,
    });
    expect(read('/project/doubtList?ptsId=99999999999')).toEqual({});
  });
});
