import { describe, expect, it } from 'vitest';
import { fieldOfPhoneError } from './phone-change-dialog';

describe('fieldOfPhoneError', () => {
  it('puts code problems under the code and the rest under the number', () => {
    for (const c of [
      'SMS_CODE_WRONG',
      'SMS_CODE_EXPIRED',
      'SMS_CODE_USED',
      'SMS_CODE_LOCKED',
      'SMS_CODE_NONE',
    ]) {
      expect(fieldOfPhoneError(c), c).toBe('code');
    }
    for (const c of [
      'SMS_CODE_TOO_SOON',
      'SMS_CODE_DAILY_LIMIT',
      'PHONE_TAKEN',
      'PHONE_SAME',
      'SMS_SEND_FAILED',
      'VALIDATION',
    ]) {
      expect(fieldOfPhoneError(c), c).toBe('phone');
    }
  });
});
