import type { FormInstance } from 'antd';

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
