import type { FormInstance } from 'antd';
import { ApiError } from './api-client';

/** What antd's validateFields rejects with when a rule fails (the messages are already shown on the fields). */
function isValidationFailure(e: unknown): boolean {
  return typeof e === 'object' && e !== null && Array.isArray((e as { errorFields?: unknown }).errorFields);
}

/**
 * The form's values when every rule passes, or null when one fails. A failed rule is an expected outcome: antd
 * shows its message on the field, so the caller only stops. Awaiting `form.validateFields()` bare turned each
 * failed validation into an uncaught promise rejection (a page error reading "Object"). Other errors propagate.
 */
export async function validFields<T>(form: FormInstance<T>): Promise<T | null> {
  try {
    return await form.validateFields();
  } catch (e) {
    if (isValidationFailure(e)) return null;
    throw e;
  }
}

/**
 * The server's field problems (a 400's `detail`) as antd `setFields` entries: each problem's field turned into the
 * form's name by `nameOf` (default: the field itself); problems it maps to null, and every other error, give none
 * (the API client has shown the message already).
 */
export function serverFieldErrors<N>(err: unknown, nameOf: (field: string) => N | null = (f) => f as N): { name: N; errors: string[] }[] {
  if (!(err instanceof ApiError)) return [];
  const out: { name: N; errors: string[] }[] = [];
  for (const d of err.detail) {
    const name = nameOf(d.field);
    if (name !== null) out.push({ name, errors: [d.message] });
  }
  return out;
}
