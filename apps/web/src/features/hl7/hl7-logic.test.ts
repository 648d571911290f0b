import { describe, expect, it } from 'vitest';
import { hasFilters, listRequest, reasonKey, segmentLine, senderOf, statusOf } from './hl7-logic';

describe('HL7 message screen logic', () => {
  it('maps each dead-letter code to its translated reason, unknown codes to the generic one', () => {
    expect(reasonKey('UNKNOWN_SENDER')).toBe('reason.UNKNOWN_SENDER');
    expect(reasonKey('NO_MSH')).toBe('reason.NO_MSH');
    expect(reasonKey('SOMETHING_NEW')).toBe('reason.other');
    expect(reasonKey(null)).toBeNull();
  });

  it('builds the list request from the filters, leaving blanks out', () => {
    expect(listRequest({}, 1, 50, 'Asia/Shanghai')).toEqual({ pageNumber: 1, pageSize: 50 });
    expect(
      listRequest({ status: 2, messageType: ' oru^r01 ', controlId: ' C1 ', range: ['2026-01-01', '2026-01-31'] }, 2, 100, 'UTC'),
    ).toEqual({ pageNumber: 2, pageSize: 100, status: 2, messageType: 'ORU^R01', controlId: 'C1', from: '2026-01-01', to: '2026-01-31', timeZone: 'UTC' });
    expect(listRequest({ status: 0 }, 1, 50, 'UTC')).toMatchObject({ status: 0 });
    expect(hasFilters({ messageType: '  ' })).toBe(false);
    expect(hasFilters({ status: 0 })).toBe(true);
  });

  it('splits a segment into its id and the rest exactly as received', () => {
    expect(segmentLine('MSH|^~\\&|LAB')).toEqual({ id: 'MSH', rest: '|^~\\&|LAB' });
    expect(segmentLine('ZX1|a')).toEqual({ id: 'ZX1', rest: '|a' });
    expect(segmentLine('garbage here')).toEqual({ id: '', rest: 'garbage here' });
    expect(segmentLine('')).toEqual({ id: '', rest: '' });
  });

  it('names the sender without empty parts and keeps unknown statuses readable', () => {
    expect(senderOf({ sendingApp: 'LAB', sendingFacility: 'HOSP' })).toBe('LAB / HOSP');
    expect(senderOf({ sendingApp: 'LAB', sendingFacility: '' })).toBe('LAB');
    expect(senderOf({ sendingApp: null, sendingFacility: null })).toBe('');
    expect(statusOf(3)).toBe(3);
    expect(statusOf(9)).toBe(0);
  });
});
