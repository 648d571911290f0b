import { useState } from 'react';
import { App, Button, Card, Popconfirm, Select, Space, Switch, Table, Tag, Tooltip, Typography, Upload } from 'antd';
import type { TableColumnsType } from 'antd';
import { ApiOutlined, EyeOutlined, EditOutlined, PlusOutlined, ReloadOutlined, UploadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { ConnectionView } from '@esource/shared';
import { columnsScrollWidth } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { mySitesQuery } from '../../subjects';
import { afterSourceChange, connectionsQuery, sourcesApi } from '../api/sources-api';
import { ConnectionDrawer } from '../components/connection-drawer';
import { ConnectionTestDialog } from '../components/connection-test';
import '../sources.css';

const KIND_COLOR: Record<string, string> = { fhir: 'geekblue', fhir_file: 'cyan', hl7v2: 'purple', sql: 'gold' };

/** What a connection's row says about its target (base URL, routing keys, database), never a secret. */
function targetOf(c: ConnectionView): string {
  const cfg = c.config;
  const s = (k: string) => (typeof cfg[k] === 'string' || typeof cfg[k] === 'number' ? String(cfg[k]) : '');
  switch (c.kind) {
    case 'fhir':
      return s('baseUrl');
    case 'fhir_file':
      return s('dropFolder');
    case 'hl7v2':
      return [s('sendingApp'), s('sendingFacility')].filter(Boolean).join(' / ');
    case 'sql':
      return `${s('dialect')}://${s('host')}:${s('port')}/${s('database')}`;
  }
}

/**
 * /project/sourceConnections: the hospital connections of the current project and environment, per site —
 * kind, name, target, enabled, last test — with add / edit (source:config:update), test, file upload (FHIR files),
 * enable/disable and delete with confirmation. Users with source:config:query only read.
 */
export default function ConnectionsPage() {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const canEdit = has('source:config:update');
  const [siteId, setSiteId] = useState<number | undefined>();
  const [editing, setEditing] = useState<ConnectionView | 'new' | null>(null);
  const [testing, setTesting] = useState<ConnectionView | null>(null);
  const sites = useQuery(mySitesQuery(scope));
  const q = useQuery(connectionsQuery(scope, siteId));

  const act = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      void message.success(done);
      await afterSourceChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    }
  };
  const upload = async (c: ConnectionView, file: File) => {
    try {
      const r = await sourcesApi.uploadFile(c.id, file);
      void message.success(
        <span>
          {t('conn.uploaded', { name: file.name })}{' '}
          <Link to={`/project/gatherData/detail?taskId=${r.taskId}`}>{t('latest.details')}</Link>
        </span>,
      );
      await afterSourceChange(qc);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    }
  };

  const columns: TableColumnsType<ConnectionView> = [
    { title: t('col.site'), dataIndex: 'siteName', width: 170, ellipsis: true },
    {
      title: t('conn.kind'),
      dataIndex: 'kind',
      width: 130,
      render: (k: string) => <Tag color={KIND_COLOR[k]}>{t(`kind.${k}`)}</Tag>,
    },
    {
      title: t('conn.name'),
      key: 'name',
      width: 300,
      render: (_: unknown, c) => (
        <div style={{ minWidth: 0 }}>
          <Button
            type="link"
            title={c.name}
            style={{ padding: 0, height: 'auto', maxWidth: '100%', display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', textAlign: 'start' }}
            onClick={() => setEditing(c)}
            data-testid={`connection-open-${c.id}`}
          >
            {c.name}
          </Button>
          <Typography.Text type="secondary" ellipsis={{ tooltip: targetOf(c) }} style={{ display: 'block', fontSize: 12 }}>
            {targetOf(c) || '—'}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: t('conn.enabled'),
      dataIndex: 'enabled',
      width: 100,
      render: (v: boolean, c) =>
        canEdit ? (
          v ? (
            <Popconfirm
              title={t('conn.disableConfirm', { name: c.name })}
              onConfirm={() => void act(() => sourcesApi.enableConnection(c.id, c.version, false), t('conn.disabledDone'))}
              okText={t('ok')}
              cancelText={t('cancel')}
            >
              <Switch checked size="small" data-testid={`connection-enabled-${c.id}`} />
            </Popconfirm>
          ) : (
            <Switch
              checked={false}
              size="small"
              onChange={() => void act(() => sourcesApi.enableConnection(c.id, c.version, true), t('conn.enabledDone'))}
              data-testid={`connection-enabled-${c.id}`}
            />
          )
        ) : (
          <Tag color={v ? 'green' : 'default'}>{v ? t('conn.on') : t('conn.disabled')}</Tag>
        ),
    },
    {
      title: t('conn.lastTest'),
      key: 'test',
      width: 190,
      render: (_: unknown, c) =>
        c.lastTestAt ? (
          <Space size={4} data-testid={`connection-last-test-${c.id}`}>
            <Tag color={c.lastTestOk ? 'success' : 'error'}>{c.lastTestOk ? t('conn.testOk') : t('conn.testFailed')}</Tag>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {dayjs(c.lastTestAt).format('MM-DD HH:mm')}
            </Typography.Text>
          </Space>
        ) : (
          <Typography.Text type="secondary">{t('conn.neverTested')}</Typography.Text>
        ),
    },
    {
      title: t('actions'),
      key: 'actions',
      width: canEdit ? 240 : 160,
      fixed: 'right',
      render: (_: unknown, c) => (
        <Space size={0} wrap>
          <Button size="small" type="link" icon={canEdit ? <EditOutlined /> : <EyeOutlined />} onClick={() => setEditing(c)} data-testid={`connection-edit-${c.id}`}>
            {canEdit ? t('edit') : t('view')}
          </Button>
          {c.kind === 'hl7v2' || c.kind === 'fhir_file' ? null : (
            <Button size="small" type="link" icon={<ApiOutlined />} onClick={() => setTesting(c)} data-testid={`connection-test-${c.id}`}>
              {t('test.button')}
            </Button>
          )}
          {c.kind === 'fhir_file' && has('source:extract:execute', 'source:config:update') ? (
            <Upload
              accept=".json,.ndjson,.jsonl,.gz,application/json,application/fhir+json,application/gzip"
              showUploadList={false}
              beforeUpload={(file) => {
                void upload(c, file);
                return false;
              }}
            >
              <Button size="small" type="link" icon={<UploadOutlined />} disabled={!c.enabled} data-testid={`connection-upload-${c.id}`}>
                {t('conn.upload')}
              </Button>
            </Upload>
          ) : null}
          {canEdit ? (
            <Popconfirm
              title={t('conn.deleteConfirm', { name: c.name })}
              description={t('conn.deleteHint')}
              onConfirm={() => void act(() => sourcesApi.deleteConnection(c.id, c.version), t('conn.deleted'))}
              okText={t('delete')}
              okButtonProps={{ danger: true }}
              cancelText={t('cancel')}
            >
              <Button size="small" type="link" danger data-testid={`connection-delete-${c.id}`}>
                {t('delete')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      ),
    },
  ];

  const rows = [...(q.data ?? [])].sort((a, b) => a.siteName.localeCompare(b.siteName) || a.name.localeCompare(b.name));
  return (
    <Card size="small" data-testid="connections-page">
      <Typography.Paragraph type="secondary">{t('conn.intro')}</Typography.Paragraph>
      <div className="source-filters">
        <Select
          allowClear
          value={siteId}
          onChange={setSiteId}
          placeholder={t('filters.site')}
          style={{ width: 240 }}
          loading={sites.isLoading}
          options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
          data-testid="connections-filter-site"
        />
        <Tooltip title={t('conn.envHint')}>
          <Space size={4}>
            <Typography.Text type="secondary">{t('conn.env')}</Typography.Text>
            <Tag color="blue" data-testid="connections-env">
              {env}
            </Tag>
          </Space>
        </Tooltip>
        <span style={{ flex: 1 }} />
        <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        {canEdit ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')} disabled={!sites.data?.length} data-testid="connection-add">
            {t('conn.add')}
          </Button>
        ) : null}
      </div>
      {q.isError ? (
        <Typography.Text type="danger">{q.error.message}</Typography.Text>
      ) : (
        <Table<ConnectionView>
          size="middle"
          rowKey="id"
          tableLayout="fixed"
          scroll={{ x: columnsScrollWidth(columns) }}
          loading={q.isFetching}
          columns={columns}
          dataSource={rows}
          pagination={false}
          data-testid="connections-table"
          locale={{
            emptyText: (
              <div style={{ padding: 24 }}>
                <Typography.Text type="secondary">{siteId ? t('conn.emptySite') : t('conn.empty')}</Typography.Text>
              </div>
            ),
          }}
        />
      )}
      {editing ? (
        <ConnectionDrawer
          connection={editing === 'new' ? null : editing}
          sites={sites.data ?? []}
          readOnly={!canEdit}
          onClose={() => setEditing(null)}
          onSaved={(c) => {
            setEditing(null);
            if (editing === 'new' && c.kind !== 'hl7v2' && c.kind !== 'fhir_file') setTesting(c);
          }}
        />
      ) : null}
      {testing ? <ConnectionTestDialog connection={testing} onClose={() => setTesting(null)} /> : null}
    </Card>
  );
}
