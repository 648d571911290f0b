/**
 * Text fields with a length limit, the one way every form shows it: the counter "n / max" under the field, typing is
 * never stopped at the limit (antd's `maxLength` silently swallowed the rest of a pasted name), and a form rule
 * refuses an over-long value with a message that names the limit. The limit comes from the shared zod schema
 * (`schemaMax(projectAddRequest.shape.name)`) or the same number the schema uses.
 */
import { Input } from 'antd';
import type { InputProps } from 'antd';
import type { TextAreaProps } from 'antd/es/input';
import type { Rule } from 'antd/es/form';
import { i18n } from '../i18n/i18n';

/** The number of characters a value counts as: the same count the counter shows and the server's zod check uses. */
function lengthOf(v: unknown): number {
  return typeof v === 'string' ? v.length : 0;
}

/** An Input that shows "n / max" and turns red past the limit instead of cutting the text. */
export function LimitedInput({
  max,
  ...props
}: Omit<InputProps, 'maxLength' | 'count' | 'showCount'> & { max: number }) {
  return <Input {...props} count={{ show: true, max }} />;
}

/** A TextArea that shows "n / max" and turns red past the limit instead of cutting the text. */
export function LimitedTextArea({
  max,
  ...props
}: Omit<TextAreaProps, 'maxLength' | 'count' | 'showCount'> & { max: number }) {
  return <Input.TextArea {...props} count={{ show: true, max }} />;
}

/** The form rule of a limited field: over `max` characters is refused with "At most {max} characters (n entered)". */
export function maxRule(max: number): Rule {
  return {
    validator: (_: unknown, v: unknown) => {
      const n = lengthOf(v);
      return n > max
        ? Promise.reject(new Error(i18n.t('common:textMax', { max, count: n })))
        : Promise.resolve();
    },
  };
}

/** The maximum length a zod string schema allows (zod 4 exposes it as `maxLength`), for fields that mirror it. */
export function schemaMax(schema: { maxLength?: number | null }, fallback = 50): number {
  return schema.maxLength ?? fallback;
}
