import { describe, expect, it } from 'vitest';
import type { FormInstance } from 'antd';
import { validFields } from './validate-form';

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
