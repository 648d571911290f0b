import { useState } from 'react';
import { App, Button, Dropdown } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { DictionaryKind } from '@esource/shared';
import { saveBlob } from '../../../lib/download';
import { dictionariesApi } from '../api/dictionaries-api';

/** The import template of a kind as .xlsx (with notes) or .csv, headers in the UI language. */
export function TemplateButton({ kind, size }: { kind: DictionaryKind; size?: 'small' | 'middle' }) {
  const { t } = useTranslation('dictionaries');
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const download = (format: 'xlsx' | 'csv') => {
    setBusy(true);
    dictionariesApi
      .template(kind, format)
      .then((b) => saveBlob(b, `dictionary-${kind}-template.${format}`))
      .catch(() => void message.error(t('templateFailed')))
      .finally(() => setBusy(false));
  };
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          { key: 'xlsx', label: <span data-testid="dict-template-xlsx">{t('templateXlsx')}</span> },
          { key: 'csv', label: <span data-testid="dict-template-csv">{t('templateCsv')}</span> },
        ],
        onClick: ({ key }) => download(key as 'xlsx' | 'csv'),
      }}
    >
      <Button
        size={size}
        type={size === 'small' ? 'link' : 'default'}
        icon={<DownloadOutlined />}
        loading={busy}
        data-testid="dict-template"
      >
        {t('template')}
      </Button>
    </Dropdown>
  );
}
