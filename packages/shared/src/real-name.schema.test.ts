import { describe, expect, it } from 'vitest';
import { maskIdNumber, realNameVerifyRequest } from './real-name.schema';
import { faceAttestRequest } from './face-login.schema';

describe('real-name request (the client checks what the server checks)', () => {
  it('accepts a valid number in either case and upper-cases it', () => {
    expect(realNameVerifyRequest.parse({ name: ' 张三 ', idNumber: '11010519491231002x' })).toEqual({
      name: '张三',
      idNumber: '11010519491231002X',
    });
    expect(
      realNameVerifyRequest.safeParse({ name: 'Anne-Marie O’Neil', idNumber: '11010519491231002X' }).success,
    ).toBe(true);
    expect(
      realNameVerifyRequest.safeParse({ name: 'Bob<script>', idNumber: '11010519491231002X' }).success,
    ).toBe(false);
    expect(
      realNameVerifyRequest.safeParse({ name: "Anne-Marie O'Neil", idNumber: '11010519491231002X' }).success,
    ).toBe(true);
    expect(
      realNameVerifyRequest.safeParse({ name: '阿卜杜·热合曼', idNumber: '11010519491231002X' }).success,
    ).toBe(true);
  });

  it('names the problem of a bad number: check digit, birth date, format', () => {
    const issue = (idNumber: string) =>
      realNameVerifyRequest.safeParse({ name: 'A', idNumber }).error?.issues[0]?.message;
    expect(issue('110105194912310021')).toBe('validation.idNumber_checksum');
    expect(issue('110105194902300027')).toMatch(/validation.idNumber_(birthDate|checksum)/);
    expect(issue('1101051949123100')).toBe('validation.idNumber_format');
    expect(realNameVerifyRequest.safeParse({ name: '', idNumber: '11010519491231002X' }).success).toBe(false);
  });

  it('masks all but the first 3 and last 4 characters', () => {
    expect(maskIdNumber('11010519491231002x')).toBe('110***********002X');
    expect(maskIdNumber('123')).toBe('***');
    expect(maskIdNumber(null)).toBe('');
  });
});

describe('getfaceAttest request', () => {
  it('is a login without a purpose; an enrolment needs the password digest', () => {
    expect(faceAttestRequest.parse({})).toEqual({ purpose: 'login' });
    expect(faceAttestRequest.parse({ account: '' })).toEqual({ purpose: 'login' });
    expect(faceAttestRequest.safeParse({ purpose: 'register' }).success).toBe(false);
    expect(faceAttestRequest.parse({ purpose: 'register', password: 'A'.repeat(64) })).toEqual({
      purpose: 'register',
      password: 'a'.repeat(64),
    });
  });
});
