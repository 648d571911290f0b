import { Button, Dropdown } from 'antd';
import { GlobalOutlined } from '@ant-design/icons';
import { LANGUAGES, type Language } from '@esource/shared';
import { sessionStore, useSession } from '../session';

const LABEL: Record<Language, string> = { zh_CN: '简体中文', en_US: 'English' };

/** zh_CN ⇄ en_US (spec §1); the choice persists and goes in the `language` header. */
export function LanguageSwitch({ light = false }: { light?: boolean }) {
  const language = useSession((s) => s.language);
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: LANGUAGES.map((l) => ({ key: l, label: <span data-testid={`lang-${l}`}>{LABEL[l]}</span> })),
        onClick: ({ key }) => sessionStore.set({ language: key as Language }),
      }}
    >
      <Button
        type="text"
        icon={<GlobalOutlined />}
        data-testid="language-switch"
        aria-label={LABEL[language]}
        style={light ? { color: '#fff' } : undefined}
      >
        <span className="esource-narrow-hide">{LABEL[language]}</span>
      </Button>
    </Dropdown>
  );
}
