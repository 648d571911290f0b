import { describe, expect, it } from 'vitest';
import { idNumberProblem } from './real-name-dialog';

describe('idNumberProblem (the shared GB 11643 schema on the client)', () => {
  it('accepts a valid number, X in either case', () => {
    expect(idNumberProblem('11010519491231002X')).toBeNull();
    expect(idNumberProblem(' 11010519491231002x ')).toBeNull();
  });
  it('names what is wrong', () => {
    expect(idNumberProblem('')).toBe('required');
    expect(idNumberProblem('110105194912310021')).toBe('checksum');
    expect(idNumberProblem('1101051949123100')).toBe('format');
    expect(idNumberProblem('110105194913310020')).toBe('birthDate');
  });
});
