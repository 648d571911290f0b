import { useState } from 'react';
import { Button, Card, Result, Tabs, Typography } from 'antd';
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { DICTIONARY_KINDS, type DictionaryKind } from '@esource/shared';
import { usePms } from '../../session';
import { versionsQuery } from '../api/dictionaries-api';
import { DictionaryPicker, type DictionaryValue } from '../components/dictionary-picker';
import { ImportDialog } from '../components/import-dialog';
import { TemplateButton } from '../components/template-button';
import { TermsTable } from '../components/terms-table';
import { VersionsTable } from '../components/versions-table';

const isKind = (k: string | null): k is DictionaryKind =>
  (DICTIONARY_KINDS as readonly (string | null)[]).includes(k);

/** One kind: its versions (the active one marked), a try-out of the coding search, and the chosen version's terms. */
function KindPanel({
  kind,
  canImport,
  onImport,
}: {
  kind: DictionaryKind;
  canImport: boolean;
  onImport: () => void;
}) {
  const { t } = useTranslation('dictionaries');
  const versions = useQuery(versionsQuery(kind));
  const [selected, setSelected] = useState<number | null>(null);
  const [tried, setTried] = useState<DictionaryValue | null>(null);
  const list = versions.data ?? [];
  const shown = list.find((v) => v.id === selected) ?? list.find((v) => v.active) ?? list[0] ?? null;

  if (versions.isError && !versions.data) {
    return (
      <Result
        status="warning"
        title={t('versionsFailed')}
        subTitle={versions.error.message}
        extra={<Button onClick={() => void versions.refetch()}>{t('retry')}</Button>}
      />
    );
  }
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
      <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <Typography.Title level={5} style={{ margin: 0 }}>
          {t('versions')}
        </Typography.Title>
        <span style={{ flex: 1 }} />
        <Button icon={<ReloadOutlined />} onClick={() => void versions.refetch()} aria-label={t('refresh')} />
        {canImport ? (
          <>
            <TemplateButton kind={kind} />
            <Button type="primary" icon={<PlusOutlined />} onClick={onImport} data-testid="dict-import">
              {t('import')}
            </Button>
          </>
        ) : null}
      </div>
      <VersionsTable
        kind={kind}
        versions={list}
        loading={versions.isFetching}
        selectedId={shown?.id ?? null}
        onSelect={setSelected}
        canActivate={canImport}
      />
      {list.some((v) => v.active) ? (
        <Card size="small" title={t('tryTitle')}>
          <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
            {t('tryHint')}
          </Typography.Paragraph>
          <div style={{ display: 'flex', gap: 16, alignItems: 'center', flexWrap: 'wrap' }}>
            <div style={{ width: 420, maxWidth: '100%' }}>
              <DictionaryPicker kind={kind} value={tried} onChange={setTried} data-testid="dict-try" />
            </div>
            {tried ? (
              <Typography.Text data-testid="dict-try-chosen">
                {t('chosen', { code: tried.code, term: tried.term })}
              </Typography.Text>
            ) : null}
          </div>
        </Card>
      ) : null}
      {shown ? <TermsTable key={shown.id} version={shown} /> : null}
    </div>
  );
}

/**
 * The dictionaries (issue 13 item 5, /system/dictionary): a tab per kind — drugs, diagnoses, surgery, examinations —
 * with its versions, the coding search, the terms, and for administrators with system:dictionary:import the import
 * (all or nothing, the new version becomes active), the templates and the switch of the active version.
 */
export default function DictionariesPage() {
  const { t } = useTranslation('dictionaries');
  const has = usePms();
  const [params, setParams] = useSearchParams();
  const param = params.get('kind');
  const kind: DictionaryKind = isKind(param) ? param : 'drug';
  const [importing, setImporting] = useState(false);
  const canImport = has('system:dictionary:import');

  return (
    <Card size="small" data-testid="dictionaries-page">
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <Tabs
        activeKey={kind}
        onChange={(k) => setParams({ kind: k }, { replace: true })}
        destroyOnHidden
        items={DICTIONARY_KINDS.map((k) => ({
          key: k,
          label: <span data-testid={`dict-tab-${k}`}>{t(`kind.${k}`)}</span>,
          children: <KindPanel kind={k} canImport={canImport} onImport={() => setImporting(true)} />,
        }))}
      />
      <ImportDialog
        open={importing}
        kind={kind}
        onClose={() => setImporting(false)}
        onImported={(d) => {
          if (d.kind !== kind) setParams({ kind: d.kind }, { replace: true });
        }}
      />
    </Card>
  );
}
