import { LANGUAGES, type Language } from '@esource/shared';
import { sessionStore, useSession } from './session-store';

const LABEL: Record<Language, string> = { zh_CN: '中文', en_US: 'EN' };

/** A light zh / EN toggle for the login pages (no antd): the choice persists and goes in the `language` header. */
export function LanguageToggle() {
  const language = useSession((s) => s.language);
  return (
    <span className="lang-toggle" data-testid="language-switch" role="group" aria-label="Language">
      {LANGUAGES.map((l) => (
        <button
          key={l}
          type="button"
          data-testid={`lang-${l}`}
          aria-pressed={l === language}
          className={l === language ? 'on' : undefined}
          onClick={() => sessionStore.set({ language: l })}
        >
          {LABEL[l]}
        </button>
      ))}
    </span>
  );
}
