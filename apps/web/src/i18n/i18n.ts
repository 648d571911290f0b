import i18next, { type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@esource/shared';

/**
 * Every web string lives in src/locales/<lang>/<namespace>.json; zh_CN is the default (spec §1). A unit
 * test checks that both languages have exactly the same keys.
 */
// the long legal texts load with the legal pages (features/legal), not with the first screen
const files = import.meta.glob<Record<string, unknown>>(['../locales/*/*.json', '!../locales/*/legal.json'], {
  eager: true,
  import: 'default',
});

export function buildResources(source: Record<string, Record<string, unknown>> = files): Resource {
  const res: Resource = {};
  for (const [path, content] of Object.entries(source)) {
    const m = /locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!m) continue;
    const [, lang, ns] = m as unknown as [string, string, string];
    res[lang] ??= {};
    res[lang][ns] = content;
  }
  return res;
}

export const NAMESPACES = [
  'common',
  'auth',
  'layout',
  'routes',
  'password',
  'progress',
  'projects',
  'legal',
  'errors',
  'projectManage',
  'sites',
  'team',
  'design',
  'crf',
  'designer',
  'users',
  'roles',
  'orgs',
  'audit',
  'centerApply',
  'subjects',
  'ecrf',
  'messages',
  'mapping',
  'prefill',
  'sources',
  'hl7',
  'documents',
  'deidConfig',
  'isf',
  'queries',
  'verification',
  'dictionaries',
  'safety',
  'signal',
  'exports',
  'reports',
  'edc',
  'edcLink',
  'feedback',
  'ddc',
  'profile',
  'smsOutbox',
  'systemSettings',
  'econsent',
] as const;

export const DAYJS_LOCALE: Record<Language, string> = { zh_CN: 'zh-cn', en_US: 'en' };

export const i18n = i18next.createInstance();

export function initI18n(language: Language = DEFAULT_LANGUAGE): typeof i18n {
  if (!i18n.isInitialized) {
    void i18n.use(initReactI18next).init({
      resources: buildResources(),
      lng: language,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      ns: [...NAMESPACES],
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
    });
  } else if (i18n.language !== language) {
    void i18n.changeLanguage(language);
  }
  dayjs.locale(DAYJS_LOCALE[language]);
  return i18n;
}

export function setLanguage(language: Language): void {
  dayjs.locale(DAYJS_LOCALE[language]);
  void i18n.changeLanguage(language);
  document.documentElement.lang = language === 'zh_CN' ? 'zh-CN' : 'en';
}
