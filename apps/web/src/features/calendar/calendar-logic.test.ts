import { describe, expect, it } from 'vitest';
import { groupByDay, position, tasks, type VisitOccurrence } from './calendar-logic';

const v = (p: Partial<VisitOccurrence>): VisitOccurrence => ({
  ptsId: 1,
  ptsNo: '01-001',
  siteId: 1,
  visitId: 1,
  unscheduledId: 0,
  name: 'V1',
  code: 'V1',
  planned: '2026-11-02',
  start: '2026-11-01',
  end: '2026-11-03',
  state: 'upcoming',
  ...p,
});

describe('calendar grouping', () => {
  it('groups by planned day within the month, sorted by subject and visit', () => {
    const g = groupByDay(
      [
        v({ ptsNo: '01-002' }),
        v({}),
        v({ code: 'V0', name: 'V0' }),
        v({ planned: '2026-12-01' }),
        v({ planned: null, start: null }),
      ],
      '2026-11',
    );
    expect([...g.keys()]).toEqual(['2026-11-02']);
    expect(g.get('2026-11-02')!.map((x) => `${x.ptsNo} ${x.code}`)).toEqual([
      '01-001 V0',
      '01-001 V1',
      '01-002 V1',
    ]);
  });
  it('uses the window start when there is no planned date', () => {
    expect([...groupByDay([v({ planned: null })]).keys()]).toEqual(['2026-11-01']);
  });
});

describe('task list', () => {
  it('keeps in-window then overdue visits', () => {
    const t = tasks([
      v({ state: 'done' }),
      v({ state: 'overdue', end: '2026-10-01' }),
      v({ state: 'inWindow', end: '2026-11-30' }),
      v({ state: 'upcoming' }),
    ]);
    expect(t.map((x) => x.state)).toEqual(['inWindow', 'overdue']);
  });
});

describe('timeline position', () => {
  it('is a clamped percentage', () => {
    expect(position('2026-01-11', '2026-01-01', '2026-01-21')).toBe(50);
    expect(position('2025-01-01', '2026-01-01', '2026-01-21')).toBe(0);
    expect(position('2026-01-01', '2026-01-01', '2026-01-01')).toBe(0);
  });
});
