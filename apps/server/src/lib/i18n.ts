/** Server-side translation of error and validation messages into the request's language. */
import i18next, { type TFunction } from 'i18next';
import type { Language } from '@esource/shared';
import zhCN from '@esource/shared/i18n/zh_CN.json' with { type: 'json' };
import enUS from '@esource/shared/i18n/en_US.json' with { type: 'json' };

const instance = i18next.createInstance();
void instance.init({
  lng: 'zh_CN',
  fallbackLng: 'zh_CN',
  initAsync: false,
  interpolation: { escapeValue: false },
  resources: { zh_CN: { translation: zhCN }, en_US: { translation: enUS } },
});

const fixed = new Map<Language, TFunction>();

export function translator(lang: Language): TFunction {
  let t = fixed.get(lang);
  if (!t) {
    t = instance.getFixedT(lang);
    fixed.set(lang, t);
  }
  return t;
}

/** Translates `key` when it names a message in our catalogue; otherwise returns it unchanged. */
export function translateMaybe(lang: Language, keyOrText: string, params: Record<string, unknown> = {}): string {
  if (/^[a-zA-Z]+(\.[a-zA-Z0-9_]+)+$/.test(keyOrText) && instance.exists(keyOrText, { lng: lang })) {
    return translator(lang)(keyOrText, params);
  }
  return keyOrText;
}
