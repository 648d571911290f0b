import { useState } from 'react';
import { Button, Tag, Tooltip } from 'antd';
import { LinkOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ENTRY_MODE } from '@esource/shared';
import { sourceOf } from '../prefill-logic';
import { SourceRecordDrawer } from './source-record-drawer';

export interface SourceLinkProps {
  variable: string;
  stored: { entryMode: number; sourceRef?: string | null } | undefined;
}

/**
 * Beside an eCRF value that came from a source record (entry mode gather 5, inject 6, or KBMS 4 from a document): its entry mode and a
 * 'Source' link that opens the record (the version the value was filled from). Nothing for other values.
 */
export function SourceLink({ variable, stored }: SourceLinkProps) {
  const { t } = useTranslation('prefill');
  const [open, setOpen] = useState(false);
  const src = sourceOf(stored);
  if (!src) return null;
  return (
    <span className="prefill-source-link" data-testid={`source-link-${variable}`}>
      <Tooltip title={t('link.modeHint')}>
        <Tag color={src.mode === ENTRY_MODE.inject ? 'purple' : src.mode === ENTRY_MODE.kbms ? 'geekblue' : 'cyan'} style={{ marginInlineEnd: 4 }}>
          {t(`entryMode.${src.mode}`)}
        </Tag>
      </Tooltip>
      <Button
        type="link"
        size="small"
        icon={<LinkOutlined />}
        style={{ padding: 0, height: 'auto' }}
        onClick={() => setOpen(true)}
        data-testid={`source-open-${variable}`}
      >
        {t('link.source')}
      </Button>
      {open ? <SourceRecordDrawer recordId={src.recordId} version={src.version} onClose={() => setOpen(false)} /> : null}
    </span>
  );
}
