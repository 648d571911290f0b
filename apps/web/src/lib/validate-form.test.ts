import { describe, expect, it } from 'vitest';
import type { FormInstance } from 'antd';
import { serverFieldErrors, validFields } from './validate-form';
import { ApiError } from './api-client';

const formRejecting = (e: Error) =>
  ({ validateFields: () => Promise.reject(e) }) as unknown as FormInstance<{ a: string }>;

describe('validFields', () => {
  it('answers the values when the rules pass', async () => {
    const form = { validateFields: () => Promise.resolve({ a: 'x' }) } as unknown as FormInstance<{
      a: string;
    }>;
    expect(await validFields(form)).toEqual({ a: 'x' });
  });
  it('answers null (no rejection) when a rule fails', async () => {
    expect(
      await validFields(
        formRejecting(
          Object.assign(new Error('validation'), {
            errorFields: [{ name: ['a'], errors: ['required'] }],
            values: {},
          }),
        ),
      ),
    ).toBeNull();
  });
  it('lets other errors through', async () => {
    await expect(validFields(formRejecting(new Error('boom')))).rejects.toThrow('boom');
  });
});

describe('serverFieldErrors', () => {
  const err = new ApiError('bad', 400, 'VALIDATION', null, [
    { field: 'hosts.icrc', message: 'must be an address' },
    { field: 'other', message: 'not on this form' },
  ]);
  it('maps each problem to a form name and leaves out what the form does not have', () => {
    expect(serverFieldErrors(err, (f) => (f.startsWith('hosts.') ? f.slice(6) : null))).toEqual([{ name: 'icrc', errors: ['must be an address'] }]);
    expect(serverFieldErrors(err).map((x) => x.name)).toEqual(['hosts.icrc', 'other']);
  });
  it('gives nothing for other errors', () => {
    expect(serverFieldErrors(new Error('x'))).toEqual([]);
  });
});
