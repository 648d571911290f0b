import { describe, expect, it } from 'vitest';
import {
  changedVariables,
  clearedVariables,
  fieldMessages,
  needReason,
  rebase,
  saveItems,
  sameValue,
  valueText,
  type StoredValues,
} from './ecrf-logic';

const at = '2026-11-21T10:00:00.000Z';
const stored: StoredValues = {
  BRTHDTC: { value: '1980-01-02', entryMode: 2, updatedBy: 'crc1', updateTime: at },
  SEX: { value: '2', entryMode: 2, updatedBy: 'crc1', updateTime: at },
  PREG: { value: 'N', entryMode: 2, updatedBy: 'crc1', updateTime: at },
  ETHNIC: { value: 'HAN', entryMode: 0, updatedBy: 'crc1', updateTime: at },
};
const all = new Set(['BRTHDTC', 'SEX', 'PREG', 'ETHNIC', 'X']);

describe('changed items', () => {
  it('finds what differs from what was loaded, among shown items', () => {
    const values = { BRTHDTC: '1981-01-02', SEX: '2', PREG: 'N', ETHNIC: 'OTHER', X: 'new' };
    expect(changedVariables(stored, values, all)).toEqual(['BRTHDTC', 'ETHNIC', 'X']);
  });
  it('includes the saved values a condition now hides: they are cleared, and the user is told and asked why', () => {
    const values = { BRTHDTC: '1980-01-02', SEX: '1', ETHNIC: 'HAN' };
    const shown = new Set(['BRTHDTC', 'SEX', 'ETHNIC']);
    const changed = changedVariables(stored, values, shown);
    expect(changed).toEqual(['PREG', 'SEX']);
    expect(clearedVariables(stored, changed, shown)).toEqual(['PREG']);
    // both need a reason (saved, not drafts); PREG is sent as cleared
    expect(needReason(stored, changed)).toEqual(['PREG', 'SEX']);
    expect(saveItems(values, changed, { PREG: 'male subject', SEX: 'typo' })).toEqual([
      { variable: 'PREG', value: null, reason: 'male subject' },
      { variable: 'SEX', value: '1', reason: 'typo' },
    ]);
  });
  it('treats empty values alike and numbers by their text', () => {
    expect(sameValue(null, '')).toBe(true);
    expect(sameValue([], undefined)).toBe(true);
    expect(sameValue(120, '120')).toBe(true);
    expect(sameValue(['a'], ['a', 'b'])).toBe(false);
  });
});

describe('reason for a change', () => {
  it('is needed for saved values, not drafts, not new answers', () => {
    expect(needReason(stored, ['BRTHDTC', 'ETHNIC', 'X'])).toEqual(['BRTHDTC']);
  });
  it('is needed when a saved value is cleared', () => {
    expect(needReason(stored, ['SEX'])).toEqual(['SEX']);
  });
  it('goes with the item sent', () => {
    expect(saveItems({ BRTHDTC: '1981-01-02', X: '' }, ['BRTHDTC', 'X'], { BRTHDTC: ' typo ' })).toEqual([
      { variable: 'BRTHDTC', value: '1981-01-02', reason: 'typo' },
      { variable: 'X', value: null },
    ]);
  });
});

describe('reload after a refused save', () => {
  it('keeps the user edits over the fresh values', () => {
    const fresh: StoredValues = {
      ...stored,
      ETHNIC: { value: 'OTHER', entryMode: 2, updatedBy: 'crc2', updateTime: at },
    };
    const edited = { BRTHDTC: '1990-05-05', SEX: '2', PREG: 'N', ETHNIC: 'HAN' };
    const r = rebase(stored, edited, fresh);
    expect(r.kept).toEqual(['BRTHDTC']);
    expect(r.values).toEqual({ BRTHDTC: '1990-05-05', SEX: '2', PREG: 'N', ETHNIC: 'OTHER' });
  });
});

describe('texts', () => {
  it('shows option labels and a dash for nothing', () => {
    const opts = [
      { value: '1', label: 'Male' },
      { value: '2', label: 'Female' },
    ];
    expect(valueText('2', opts)).toBe('Female');
    expect(valueText(['1', '2'], opts)).toBe('Male, Female');
    expect(valueText(null)).toBe('—');
  });
  it('maps 400 detail to fields', () => {
    expect(
      fieldMessages([
        { field: 'SEX', message: 'required' },
        { field: 'SEX', message: 'other' },
      ]),
    ).toEqual({ SEX: 'required' });
  });
});
