import { describe, expect, it } from 'vitest';
import { INT4_MAX, calendarDay, dateSchema, dateTimeSchema, idListSchema, idSchema, intSchema, parseDateTime } from './common.schema';

describe('idSchema', () => {
  it('takes positive int4 integers as JSON numbers or plain decimal text', () => {
    for (const [v, n] of [[1, 1], ['1', 1], ['42', 42], [INT4_MAX, INT4_MAX], [String(INT4_MAX), INT4_MAX]] as const) {
      expect(idSchema.parse(v)).toBe(n);
    }
  });

  it('refuses everything else: booleans, exponents, hex, fractions, padding, blanks, past int4', () => {
    for (const v of [true, false, 'true', '1e3', '1e0', '0x10', '0b1', '1.0', 1.5, ' 1', '1 ', '+1', '01', '', null, 0, -1, '-1', NaN, Infinity, INT4_MAX + 1, String(INT4_MAX + 1), 2 ** 53, [1], {}]) {
      const r = idSchema.safeParse(v);
      expect(r.success, JSON.stringify(v)).toBe(false);
      expect(r.error!.issues[0]!.message).toBe('validation.id');
    }
  });

  it('reads id lists element by element', () => {
    expect(idListSchema.parse('1,2')).toEqual([1, 2]);
    expect(idListSchema.safeParse([1, true]).success).toBe(false);
    expect(idListSchema.safeParse(['1', '2147483648']).success).toBe(false);
  });
});

describe('intSchema', () => {
  it('bounds integers, and never past int4', () => {
    expect(intSchema(1, 8).parse('8')).toBe(8);
    expect(intSchema(1, 8).safeParse('9').success).toBe(false);
    expect(intSchema(-5).parse('-5')).toBe(-5);
    expect(intSchema().safeParse(INT4_MAX + 1).success).toBe(false);
    expect(intSchema(0, Number.MAX_SAFE_INTEGER).safeParse(INT4_MAX + 1).success).toBe(false);
    expect(intSchema().safeParse('1e3').error!.issues[0]!.message).toBe('validation.integer');
    expect(intSchema().safeParse(true).error!.issues[0]!.message).toBe('validation.integer');
  });
});

describe('dates', () => {
  it('takes real calendar days in 1900–2100 only', () => {
    expect(calendarDay('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    for (const d of ['2026-02-31', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '0000-01-01', '1899-12-31', '2101-01-01', '2026-1-1', '20260101', '2026-02-28T00:00:00Z']) {
      expect(calendarDay(d), d).toBeNull();
      expect(dateSchema.safeParse(d).success, d).toBe(false);
    }
    expect(dateSchema.parse('1900-01-01')).toBe('1900-01-01');
    expect(dateSchema.parse('2100-12-31')).toBe('2100-12-31');
    expect(dateSchema.safeParse(20260101).error!.issues[0]!.message).toBe('validation.calendarDate');
  });

  it('reads date-times with real times and zones as Dates', () => {
    expect(parseDateTime('2026-01-15')?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(parseDateTime('2026-01-15T08:30:00Z')?.toISOString()).toBe('2026-01-15T08:30:00.000Z');
    expect(parseDateTime('2026-01-15T08:30:00.123+08:00')?.toISOString()).toBe('2026-01-15T00:30:00.123Z');
    for (const d of ['2026-02-31T00:00:00Z', '2026-01-15T24:00:00Z', '2026-01-15T10:60', '2026-01-15T10:00:00+15:00', '0', 'true', '0000-01-01T00:00:00Z', '']) {
      expect(parseDateTime(d), d).toBeNull();
    }
    for (const v of [0, true, '0', 'yesterday']) expect(dateTimeSchema.safeParse(v).success, String(v)).toBe(false);
    // a Date from an earlier parse passes again (schemas that re-check a parsed range)
    expect(dateTimeSchema.parse(new Date('2026-01-15T00:00:00Z')).toISOString()).toBe('2026-01-15T00:00:00.000Z');
  });
});
