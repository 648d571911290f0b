/** Parses input with a zod schema, with messages in the request's language and naming each field. */
import type { z } from 'zod';
import { en, zhCN } from 'zod/locales';
import type { Language } from '@esource/shared';
import { AppError, type FieldProblem } from './errors';
import { translateMaybe, translator } from './i18n';

const locales = { zh_CN: zhCN().localeError, en_US: en().localeError } as const;

/** zod's messages in the request's language: pass as `{ error: zodLocale(lang) }` wherever a schema is parsed. */
export function zodLocale(lang: Language) {
  return locales[lang];
}

/**
 * A VALIDATION error about one field with a catalogue message (`key` with `params`), in the request's language.
 * `label` is how the message names the field ('validation.field' by default; 'validation.headerField' for headers).
 */
export function fieldError(lang: Language, field: string, key: string, params: Record<string, unknown> = {}, label = 'validation.field'): AppError {
  const t = translator(lang);
  const message = t(key, params);
  return new AppError('VALIDATION', { detail: t(label, { field, message }) }, [{ field, message }]);
}

export function parseInput<S extends z.ZodType>(schema: S, data: unknown, lang: Language, where: string): z.output<S> {
  const r = schema.safeParse(data ?? {}, { error: locales[lang], reportInput: true });
  if (r.success) return r.data;
  const t = translator(lang);
  const detail: FieldProblem[] = r.error.issues.map((i) => {
    const field = i.path.length ? i.path.join('.') : where;
    const missing = i.code === 'invalid_type' && !('input' in i && i.input !== undefined);
    const message = missing ? t('validation.required') : translateMaybe(lang, i.message);
    return { field, message };
  });
  const first = detail[0]!;
  throw new AppError('VALIDATION', { detail: t('validation.field', { field: first.field, message: first.message }) }, detail);
}

/**
 * parseInput for one row of an import file: instead of throwing, each problem goes into `out` (one per top-level
 * field), and the answer is null when there was any.
 */
export function parseRow<S extends z.ZodType>(schema: S, data: unknown, lang: Language, out: FieldProblem[]): z.output<S> | null {
  try {
    return parseInput(schema, data, lang, 'row');
  } catch (err) {
    if (!(err instanceof AppError) || !err.detail) throw err;
    for (const d of err.detail) {
      const field = d.field.split('.')[0]!;
      if (!out.some((p) => p.field === field)) out.push({ field, message: d.message });
    }
    return null;
  }
}
