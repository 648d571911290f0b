import { describe, expect, it } from 'vitest';
import type { VisitRow } from '@esource/shared';
import {
  axisTicks,
  dayPercent,
  nextSortOrder,
  overlappingWindows,
  timelineRange,
  visitBody,
  visitFormValues,
  visitWindows,
} from './visit-plan';

const visit = (p: Partial<VisitRow> & { id: number; code: string }): VisitRow => ({
  versionId: 1,
  stageId: null,
  name: p.code,
  nameEn: null,
  sortOrder: p.id,
  dayOffset: 0,
  windowBefore: 0,
  windowAfter: 0,
  unscheduled: false,
  formIds: [],
  ...p,
});

// the demo plan: screening day 0, week 2 (14 −3/+3), week 4 (28 −3/+7), an unscheduled visit
const DEMO = [
  visit({ id: 1, code: 'V1' }),
  visit({ id: 2, code: 'V2', dayOffset: 14, windowBefore: 3, windowAfter: 3 }),
  visit({ id: 3, code: 'V3', dayOffset: 28, windowBefore: 3, windowAfter: 7 }),
  visit({ id: 4, code: 'UNS', sortOrder: 9, unscheduled: true }),
];

describe('visit windows for the timeline', () => {
  it('gives each scheduled visit the days [day − before, day + after] and leaves unscheduled visits out', () => {
    expect(visitWindows(DEMO).map((w) => [w.code, w.start, w.day, w.end])).toEqual([
      ['V1', 0, 0, 0],
      ['V2', 11, 14, 17],
      ['V3', 25, 28, 35],
    ]);
  });

  it('orders by day, then by visit order', () => {
    const ws = visitWindows([
      visit({ id: 1, code: 'B', dayOffset: 7, sortOrder: 2 }),
      visit({ id: 2, code: 'A', dayOffset: 7, sortOrder: 1 }),
      visit({ id: 3, code: 'C', dayOffset: -3 }),
    ]);
    expect(ws.map((w) => w.code)).toEqual(['C', 'A', 'B']);
  });

  it('shows day 0 and every window with some room, and places days proportionally', () => {
    const r = timelineRange(visitWindows(DEMO));
    expect(r.min).toBeLessThan(0);
    expect(r.max).toBeGreaterThan(35);
    expect(dayPercent(r.min, r)).toBe(0);
    expect(dayPercent(r.max, r)).toBe(100);
    expect(dayPercent(14, r)).toBeGreaterThan(dayPercent(0, r));
    // a visit before day 0 (run-in) widens the range to the left
    expect(
      timelineRange(visitWindows([visit({ id: 1, code: 'R', dayOffset: -14, windowBefore: 2 })])).min,
    ).toBeLessThan(-16);
    expect(timelineRange([])).toEqual({ min: 0, max: 1 });
  });

  it('labels the axis without crowding', () => {
    const r = { min: 0, max: 100 };
    expect(axisTicks([0, 14, 3, 28, 14, 30], r)).toEqual([0, 14, 28]);
    expect(axisTicks([], r)).toEqual([]);
  });

  it('finds overlapping windows', () => {
    expect(overlappingWindows(visitWindows(DEMO))).toEqual([]);
    const ws = visitWindows([
      visit({ id: 1, code: 'W1', dayOffset: 7, windowAfter: 4 }),
      visit({ id: 2, code: 'W2', dayOffset: 14, windowBefore: 3 }),
    ]);
    expect(overlappingWindows(ws).map(([a, b]) => `${a.code}/${b.code}`)).toEqual(['W1/W2']);
  });
});

describe('visit dialog → API', () => {
  it('sends a new visit with its version, trimmed texts and each form once', () => {
    const v = {
      ...visitFormValues(undefined, 5),
      code: ' V5 ',
      name: ' Week 8 ',
      nameEn: ' Week eight ',
      dayOffset: 56,
      windowBefore: 7,
      windowAfter: 7,
      formIds: [3, 3, 4],
      stageId: 2,
    };
    expect(visitBody(v, { versionId: 9 })).toEqual({
      versionId: 9,
      stageId: 2,
      code: 'V5',
      name: 'Week 8',
      nameEn: 'Week eight',
      sortOrder: 5,
      dayOffset: 56,
      windowBefore: 7,
      windowAfter: 7,
      unscheduled: false,
      formIds: [3, 4],
    });
  });

  it('an unscheduled visit has no day and no window; no stage is left out; empty numbers are 0', () => {
    const edited = {
      ...visitFormValues(DEMO[1], 1),
      unscheduled: true,
      stageId: null,
      sortOrder: null as unknown as number,
    };
    const b = visitBody(edited, { id: 2 });
    expect(b).toMatchObject({
      id: 2,
      dayOffset: 0,
      windowBefore: 0,
      windowAfter: 0,
      unscheduled: true,
      sortOrder: 0,
    });
    expect('stageId' in b).toBe(false);
    expect('versionId' in b).toBe(false);
  });

  it('a new visit goes last', () => {
    expect(nextSortOrder(DEMO)).toBe(10);
    expect(nextSortOrder([])).toBe(1);
  });
});
