import { useState } from 'react';
import { App, Button, Card, Empty, Modal, Result, Select, Space, Table, Tabs, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { SOURCE_DOC_TYPES, type MappingFieldRow } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { ScheduleConfig } from '../../prefill';
import { fieldsQuery, formsQuery, mappingApi, versionsQuery } from '../api/mapping-api';
import { ruleMatchText } from '../mapping-logic';
import { RuleDrawer } from '../components/rule-drawer';
import '../mapping.css';

/**
 * /project/dataMapping (issue 11 item 3 and the pre-fill schedule): pick a design version and a form, see each item
 * with the rule that fills it from source records, edit a rule in a drawer (with a test against a subject), delete
 * it; a second tab holds the project's pre-fill schedule. Read-only without source:config:update.
 */
export default function DataMappingPage() {
  const { t } = useTranslation('mapping');
  const has = usePms();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'schedule' && has('crf:prefill:query') ? 'schedule' : 'rules';
  const showRules = has('source:config:query');
  return (
    <Card data-testid="data-mapping-page">
      <Tabs
        activeKey={showRules ? tab : 'schedule'}
        onChange={(k) =>
          setParams(
            (p) => {
              const n = new URLSearchParams(p);
              if (k === 'schedule') n.set('tab', k);
              else n.delete('tab');
              return n;
            },
            { replace: true },
          )
        }
        items={[
          ...(showRules ? [{ key: 'rules', label: t('tabs.rules'), children: <RulesTab /> }] : []),
          ...(has('crf:prefill:query') ? [{ key: 'schedule', label: t('tabs.schedule'), children: <ScheduleConfig /> }] : []),
        ]}
      />
    </Card>
  );
}

function RulesTab() {
  const { t } = useTranslation('mapping');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const has = usePms();
  const canEdit = has('source:config:update');
  const scope = { env, projectId };
  const [params, setParams] = useSearchParams();
  const [editing, setEditing] = useState<MappingFieldRow | null>(null);
  const versions = useQuery(versionsQuery(scope));
  // the version and form the address names, else the version being collected (or the newest) and its first form, so
  // that the page opens on something. Derived, not written into the address once loaded: a late rewrite of the address
  // would cancel a navigation the user started meanwhile (the menu click that stayed on this page)
  const vs = versions.data;
  const versionId = params.get('versionId') ? Number(params.get('versionId')) : vs?.length ? (vs.find((v) => v.collecting) ?? vs[vs.length - 1]!).id : null;
  const forms = useQuery(formsQuery(scope, versionId));
  const formId = params.get('formId') ? Number(params.get('formId')) : (forms.data?.[0]?.id ?? null);
  const fields = useQuery(fieldsQuery(scope, formId));
  const name = (o: { name: string; nameEn: string | null }) => (language === 'en_US' && o.nameEn ? o.nameEn : o.name);

  const pick = (patch: Record<string, number | null>) =>
    setParams(
      (p) => {
        const n = new URLSearchParams(p);
        for (const [k, v] of Object.entries(patch)) if (v === null) n.delete(k);
        else n.set(k, String(v));
        return n;
      },
      { replace: true },
    );

  const remove = (f: MappingFieldRow) => {
    if (!f.rule) return;
    const rule = f.rule;
    Modal.confirm({
      title: t('delete.title'),
      content: t('delete.content', { item: language === 'en_US' && f.labelEn ? f.labelEn : f.label }),
      okText: t('delete.ok'),
      okButtonProps: { danger: true, 'data-testid': 'rule-delete-ok' },
      cancelText: t('cancel'),
      onOk: async () => {
        await mappingApi.remove(rule.id, rule.version);
        void message.success(t('delete.done'));
        await qc.invalidateQueries({ queryKey: ['mapping', 'fields'] });
      },
    });
  };

  const columns: TableProps<MappingFieldRow>['columns'] = [
    {
      title: t('item.label'),
      key: 'label',
      width: 220,
      render: (_: unknown, f) => (
        <div>
          <div>{language === 'en_US' && f.labelEn ? f.labelEn : f.label}</div>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {f.variable}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('item.type'),
      dataIndex: 'type',
      width: 110,
      render: (v: string, f) => (
        <span>
          {t(`fieldType.${v}`, { defaultValue: v })}
          {f.unit ? <Typography.Text type="secondary"> · {f.unit}</Typography.Text> : null}
        </span>
      ),
    },
    {
      title: t('item.rule'),
      key: 'rule',
      render: (_: unknown, f) =>
        f.rule ? (
          <div data-testid={`rule-summary-${f.variable}`}>
            <Space size={4} wrap>
              <Tag color={f.rule.method === 'code' ? 'blue' : 'purple'}>{t(`method.${f.rule.method}`)}</Tag>
              <Typography.Text code ellipsis style={{ maxWidth: 280 }}>
                {ruleMatchText(f.rule)}
              </Typography.Text>
              {f.rule.useSynonyms && f.rule.method === 'code' ? <Tag>{t('rule.synonymsShort')}</Tag> : null}
            </Space>
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {[
                  f.rule.docTypes.length
                    ? f.rule.docTypes.map((d) => t(`sources:docType.${SOURCE_DOC_TYPES[d - 1] ?? 'courseRecord'}`)).join('/')
                    : t('rule.docTypesAny'),
                  t(`selection.${f.rule.selection === 'worst' ? (f.rule.worst === 'low' ? 'worstLow' : 'worstHigh') : f.rule.selection}`),
                  f.rule.windowOnly ? t('rule.windowOnlyShort') : t('rule.anyDate'),
                  f.rule.unit ? `→ ${f.rule.unit}` : null,
                  f.rule.optionMap.length ? t('rule.optionCount', { count: f.rule.optionMap.length }) : null,
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </Typography.Text>
            </div>
          </div>
        ) : (
          <Typography.Text type="secondary" data-testid={`rule-summary-${f.variable}`}>
            {t('rule.none')}
          </Typography.Text>
        ),
    },
    {
      title: t('item.updated'),
      key: 'updated',
      width: 160,
      render: (_: unknown, f) =>
        f.rule ? (
          <div>
            <div>{f.rule.updatedBy ?? '—'}</div>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {f.rule.updateTime.slice(0, 16).replace('T', ' ')}
            </Typography.Text>
          </div>
        ) : (
          '—'
        ),
    },
    {
      title: t('actions'),
      key: 'actions',
      width: 150,
      fixed: 'right',
      render: (_: unknown, f) => (
        <Space size={0}>
          {f.type === 'file' ? (
            <Tooltip title={t('rule.fileNotMapped')}>
              <Typography.Text type="secondary">—</Typography.Text>
            </Tooltip>
          ) : (
            <Button
              type="link"
              size="small"
              icon={f.rule || !canEdit ? <EditOutlined /> : <PlusOutlined />}
              onClick={() => setEditing(f)}
              data-testid={`rule-edit-${f.variable}`}
            >
              {canEdit ? (f.rule ? t('edit') : t('add')) : t('view')}
            </Button>
          )}
          {canEdit && f.rule ? (
            <Button
              type="link"
              size="small"
              danger
              icon={<DeleteOutlined />}
              onClick={() => remove(f)}
              data-testid={`rule-delete-${f.variable}`}
              aria-label={t('delete.ok')}
            />
          ) : null}
        </Space>
      ),
    },
  ];

  if (versions.isError)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={versions.error.message}
        extra={<Button onClick={() => void versions.refetch()}>{t('retry')}</Button>}
      />
    );

  return (
    <div data-testid="mapping-rules">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, marginBottom: 16, alignItems: 'center' }}>
        <Select<number>
          value={versionId ?? undefined}
          loading={versions.isLoading}
          placeholder={t('pickVersion')}
          style={{ width: 240 }}
          onChange={(v) => pick({ versionId: v, formId: null })}
          options={(versions.data ?? []).map((v) => ({
            value: v.id,
            label: `${v.name}${v.collecting ? ` · ${t('collecting')}` : ''}`,
          }))}
          data-testid="mapping-version"
        />
        <Select<number>
          value={formId ?? undefined}
          loading={forms.isLoading}
          disabled={versionId === null}
          placeholder={t('pickForm')}
          style={{ width: 260 }}
          onChange={(v) => pick({ formId: v })}
          options={(forms.data ?? []).map((f) => ({ value: f.id, label: `${f.code} ${name(f)}` }))}
          data-testid="mapping-form"
        />
        <span style={{ flex: 1 }} />
        {fields.data ? (
          <Typography.Text type="secondary" data-testid="mapping-count">
            {t('ruleCount', {
              rules: fields.data.items.filter((i) => i.rule).length,
              items: fields.data.items.length,
            })}
          </Typography.Text>
        ) : null}
        <Button icon={<ReloadOutlined />} onClick={() => void fields.refetch()} disabled={formId === null} aria-label={t('refresh')} />
      </div>
      {!canEdit ? (
        <Typography.Paragraph type="secondary" data-testid="mapping-readonly">
          {t('readOnly')}
        </Typography.Paragraph>
      ) : null}
      {versions.data && versions.data.length === 0 ? (
        <Empty description={t('noVersions')} />
      ) : fields.isError ? (
        <Result
          status="warning"
          title={t('fieldsFailed')}
          subTitle={fields.error.message}
          extra={<Button onClick={() => void fields.refetch()}>{t('retry')}</Button>}
        />
      ) : (
        <Table<MappingFieldRow>
          size="middle"
          tableLayout="fixed"
          rowKey="variable"
          loading={fields.isFetching || versions.isLoading || forms.isLoading}
          dataSource={fields.data?.items ?? []}
          columns={columns}
          pagination={false}
          scroll={{ x: 900 }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={formId === null ? t('pickFormFirst') : t('noItems')} /> }}
          data-testid="mapping-table"
        />
      )}
      {editing && formId !== null ? (
        <RuleDrawer formId={formId} field={editing} canEdit={canEdit} onClose={() => setEditing(null)} />
      ) : null}
    </div>
  );
}
