import { useRef, useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Dropdown,
  Empty,
  Popconfirm,
  Result,
  Row,
  Space,
  Table,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import type { TableColumnsType } from 'antd';
import {
  CloudUploadOutlined,
  DeleteOutlined,
  DownOutlined,
  DownloadOutlined,
  EditOutlined,
  FormOutlined,
  LockOutlined,
  PlusOutlined,
  UploadOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import {
  can,
  visitLabel,
  type DesignImportResult,
  type FormRow,
  type Permission,
  type VersionRow,
  type VisitRow,
} from '@esource/shared';
import { useSession, useAccess } from '../../session';
import {
  designApi,
  formsQuery,
  stagesQuery,
  versionsQuery,
  visitsQuery,
  type StageRow,
} from '../api/design-api';
import { NewVersionDialog, PublishDialog, StageDialog } from '../components/version-dialogs';
import { OdmUnmappedDialog } from '../components/odm-unmapped-dialog';
import { VisitDialog } from '../components/visit-dialog';
import { VisitTimeline } from '../components/visit-timeline';
import { nextSortOrder, windowText } from '../visit-plan';
import { saveBlob } from '../../../lib/download';

type Dialog =
  | { kind: 'newVersion' }
  | { kind: 'publish'; version: VersionRow }
  | { kind: 'stage'; stage?: StageRow }
  | { kind: 'visit'; visit?: VisitRow }
  | null;

export function designerLink(versionId: number, formId?: number): string {
  const q = new URLSearchParams({ versionId: String(versionId) });
  if (formId !== undefined) q.set('formId', String(formId));
  return `/project/microCrfConfig?${q.toString()}`;
}

/** /project/design: design versions, and the selected version's stages, visits (with windows) and forms. */
export default function DesignPage() {
  const { t } = useTranslation('design');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));

  const versions = useQuery(versionsQuery(scope));
  const [chosenId, setChosenId] = useState<number | null>(null);
  const list = versions.data ?? [];
  const version = list.find((v) => v.id === chosenId) ?? list[0];
  const versionId = version?.id ?? null;
  const stages = useQuery(stagesQuery(scope, versionId));
  const visits = useQuery(visitsQuery(scope, versionId));
  const forms = useQuery(formsQuery(scope, versionId));
  const [dialog, setDialog] = useState<Dialog>(null);
  const projectNo = useSession((s) => s.project?.no ?? 'project');
  const fileInput = useRef<HTMLInputElement>(null);
  const [transfer, setTransfer] = useState<'export' | 'import' | null>(null);

  const [unmappedOf, setUnmappedOf] = useState<DesignImportResult | null>(null);

  const doExport = async (v: VersionRow, format: 'json' | 'odm') => {
    setTransfer('export');
    try {
      const blob = await designApi.exportDesign(v.id, format);
      saveBlob(blob, `${projectNo}-${v.name}${format === 'odm' ? '.odm.xml' : '.design.json'}`);
    } finally {
      setTransfer(null);
    }
  };

  // a wrong file is refused by the server with the reason, shown by the API client's Error notification
  const doImport = async (file: File) => {
    setTransfer('import');
    try {
      const v = await designApi.importDesign(await file.text());
      setChosenId(v.id);
      void message.success(t('version.imported', { name: v.name }));
      // a CDISC ODM file: what the design could not hold is listed, never dropped silently
      if (v.unmapped?.length) setUnmappedOf(v);
      await refresh();
    } finally {
      setTransfer(null);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const isDev = env === 'DEV';
  const unpublished = version?.status === 0;
  const canEditVisits = isDev && unpublished && allowed('project:visit:update');
  const refresh = () => qc.invalidateQueries({ queryKey: ['design'] });
  const stageName = (id: number | null) => stages.data?.find((s) => s.id === id)?.name ?? '—';
  const formName = (f: FormRow) => (language === 'en_US' && f.nameEn ? f.nameEn : f.name);

  const readOnlyReason = !version
    ? null
    : !isDev
      ? t('readOnly.env', { env })
      : !unpublished
        ? t('readOnly.published')
        : !allowed('project:visit:update')
          ? t('readOnly.permission')
          : null;

  const visitColumns: TableColumnsType<VisitRow> = [
    { title: t('visit.order'), dataIndex: 'sortOrder', key: 'order', width: 70 },
    { title: t('visit.code'), dataIndex: 'code', key: 'code', width: 90 },
    {
      title: t('visit.name'),
      dataIndex: 'name',
      key: 'name',
      render: (_: string, v: VisitRow) => visitLabel(v, language),
    },
    {
      title: t('visit.stage'),
      dataIndex: 'stageId',
      key: 'stage',
      width: 140,
      render: (v: number | null) => stageName(v),
    },
    {
      title: t('visit.dayOffset'),
      key: 'day',
      width: 90,
      render: (_: unknown, v) => {
        const w = windowText(v);
        return w ? <span style={{ whiteSpace: 'nowrap' }}>{t('timeline.day', { day: w.day })}</span> : '—';
      },
    },
    {
      title: t('visit.window'),
      key: 'window',
      width: 110,
      render: (_: unknown, v) => {
        const w = windowText(v);
        return w ? <span style={{ whiteSpace: 'nowrap' }}>{`−${w.before} / +${w.after}`}</span> : '—';
      },
    },
    {
      title: t('visit.unscheduled'),
      dataIndex: 'unscheduled',
      key: 'unscheduled',
      width: 110,
      render: (u: boolean) => (u ? <Tag color="orange">{t('visit.unscheduledTag')}</Tag> : null),
    },
    {
      title: t('visit.forms'),
      dataIndex: 'formIds',
      key: 'forms',
      render: (ids: number[]) => (
        <Space size={[4, 4]} wrap>
          {ids.map((id) => {
            const f = forms.data?.find((x) => x.id === id);
            return <Tag key={id}>{f ? f.code : `#${id}`}</Tag>;
          })}
        </Space>
      ),
    },
  ];
  if (canEditVisits)
    visitColumns.push({
      title: t('actions'),
      key: 'actions',
      width: 150,
      render: (_: unknown, v) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            onClick={() => setDialog({ kind: 'visit', visit: v })}
            data-testid={`visit-edit-${v.code}`}
          >
            {t('edit')}
          </Button>
          <Popconfirm
            title={t('visit.confirmDelete', { code: v.code })}
            onConfirm={() =>
              void designApi.deleteVisit(v.id).then(() => {
                void message.success(t('visit.deleted', { code: v.code }));
                return refresh();
              })
            }
          >
            <Button
              type="link"
              size="small"
              danger
              icon={<DeleteOutlined />}
              data-testid={`visit-delete-${v.code}`}
            >
              {t('delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    });

  const formColumns: TableColumnsType<FormRow> = [
    { title: t('form.code'), dataIndex: 'code', key: 'code', width: 110 },
    { title: t('form.name'), key: 'name', render: (_: unknown, f) => formName(f) },
    { title: t('form.fields'), dataIndex: 'fieldCount', key: 'fields', width: 100 },
    {
      title: t('form.visits'),
      key: 'visits',
      render: (_: unknown, f) => (
        <Space size={[4, 4]} wrap>
          {(visits.data ?? [])
            .filter((v) => v.formIds.includes(f.id))
            .map((v) => (
              <Tag key={v.id}>{v.code}</Tag>
            ))}
        </Space>
      ),
    },
    {
      title: t('form.updated'),
      dataIndex: 'updateTime',
      key: 'updated',
      width: 150,
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
    {
      title: t('actions'),
      key: 'actions',
      width: 150,
      render: (_: unknown, f) => (
        <Link to={designerLink(f.versionId, f.id)} data-testid={`form-open-${f.code}`}>
          <FormOutlined /> {canEditVisits && allowed('crf:form:update') ? t('form.design') : t('form.view')}
        </Link>
      ),
    },
  ];

  if (versions.isError)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        extra={<Button onClick={() => void versions.refetch()}>{t('retry')}</Button>}
      />
    );

  const versionTags = (v: VersionRow) => (
    <Space size={[4, 4]} wrap>
      {v.status === 0 ? (
        <Tag color="default">{t('version.unpublished')}</Tag>
      ) : (
        <Tag color="green" icon={<LockOutlined />}>
          {t('version.published')}
        </Tag>
      )}
      {v.publishedEnvs.map((e) => (
        <Tag key={e} color="blue">
          {e}
        </Tag>
      ))}
      {v.collecting ? <Tag color="purple">{t('version.collecting')}</Tag> : null}
    </Space>
  );

  return (
    <div data-testid="design-page">
      {!isDev ? (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 16 }}
          title={t('envNotice', { env })}
          data-testid="design-env-notice"
        />
      ) : null}
      <Row gutter={16}>
        <Col xs={24} lg={6}>
          <Card
            size="small"
            title={t('version.title')}
            loading={versions.isPending}
            extra={
              <Space size={4}>
                {isDev && allowed('project:info:import') ? (
                  <>
                    <input
                      ref={fileInput}
                      type="file"
                      accept=".json,.xml,application/json,application/xml,text/xml"
                      hidden
                      data-testid="design-import-file"
                      onChange={(e) => {
                        const f = e.target.files?.[0];
                        if (f) void doImport(f).catch(() => undefined);
                      }}
                    />
                    <Tooltip title={t('version.importHelp')}>
                      <Button
                        size="small"
                        icon={<UploadOutlined />}
                        loading={transfer === 'import'}
                        onClick={() => fileInput.current?.click()}
                        aria-label={t('version.import')}
                        data-testid="design-import"
                      />
                    </Tooltip>
                  </>
                ) : null}
                {isDev && allowed('project:version:update') ? (
                  <Button
                    size="small"
                    icon={<PlusOutlined />}
                    onClick={() => setDialog({ kind: 'newVersion' })}
                    data-testid="version-new"
                  >
                    {t('version.new')}
                  </Button>
                ) : null}
              </Space>
            }
          >
            {list.length === 0 ? (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={isDev ? t('version.none') : t('version.noneEnv', { env })}
              />
            ) : (
              <div data-testid="version-list" role="listbox" aria-label={t('version.title')}>
                {list.map((v) => (
                  <div
                    key={v.id}
                    role="option"
                    aria-selected={v.id === versionId}
                    tabIndex={0}
                    onClick={() => setChosenId(v.id)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' || e.key === ' ') setChosenId(v.id);
                    }}
                    style={{
                      cursor: 'pointer',
                      padding: '8px 10px',
                      borderRadius: 6,
                      marginBottom: 4,
                      background: v.id === versionId ? '#e6f4ff' : undefined,
                      border: v.id === versionId ? '1px solid #91caff' : '1px solid transparent',
                    }}
                    data-testid={`version-${v.name}`}
                  >
                    <Typography.Text strong>{v.name}</Typography.Text>
                    <Typography.Text type="secondary" style={{ marginInlineStart: 8, fontSize: 12 }}>
                      {t('version.counts', { visits: v.visitCount, forms: v.formCount })}
                    </Typography.Text>
                    <div style={{ marginTop: 4 }}>{versionTags(v)}</div>
                  </div>
                ))}
              </div>
            )}
            {!isDev ? (
              <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0, fontSize: 12 }}>
                {t('version.onlyDev')}
              </Typography.Paragraph>
            ) : null}
          </Card>
        </Col>
        <Col xs={24} lg={18}>
          {version ? (
            <Card
              size="small"
              data-testid="version-detail"
              title={
                <Space>
                  <span>{version.name}</span>
                  {versionTags(version)}
                </Space>
              }
              extra={
                <Space size={4}>
                  {allowed('project:info:export') ? (
                    <Space.Compact size="small">
                      <Tooltip title={t('version.exportJson')}>
                        <Button
                          size="small"
                          icon={<DownloadOutlined />}
                          loading={transfer === 'export'}
                          onClick={() => void doExport(version, 'json').catch(() => undefined)}
                          data-testid="design-export"
                        >
                          {t('version.export')}
                        </Button>
                      </Tooltip>
                      <Dropdown
                        trigger={['click']}
                        menu={{
                          items: [
                            {
                              key: 'json',
                              label: <span data-testid="design-export-json">{t('version.exportJson')}</span>,
                            },
                            {
                              key: 'odm',
                              label: <span data-testid="design-export-odm">{t('version.exportOdm')}</span>,
                            },
                          ],
                          onClick: ({ key }) =>
                            void doExport(version, key as 'json' | 'odm').catch(() => undefined),
                        }}
                      >
                        <Button
                          size="small"
                          icon={<DownOutlined />}
                          aria-label={t('version.exportFormats')}
                          data-testid="design-export-more"
                        />
                      </Dropdown>
                    </Space.Compact>
                  ) : null}
                  {isDev && allowed('project:version:publish') && version.publishedEnvs.length < 2 ? (
                    <Button
                      type="primary"
                      size="small"
                      icon={<CloudUploadOutlined />}
                      onClick={() => setDialog({ kind: 'publish', version })}
                      data-testid="version-publish"
                    >
                      {t('version.publish')}
                    </Button>
                  ) : null}
                </Space>
              }
            >
              {readOnlyReason ? (
                <Alert
                  type="info"
                  showIcon
                  icon={<LockOutlined />}
                  style={{ marginBottom: 12 }}
                  title={readOnlyReason}
                  data-testid="design-readonly"
                />
              ) : null}
              <Tabs
                items={[
                  {
                    key: 'visits',
                    label: t('tabs.visits'),
                    children: (
                      <div data-testid="visits-tab">
                        <div
                          style={{
                            display: 'flex',
                            alignItems: 'center',
                            gap: 8,
                            flexWrap: 'wrap',
                            marginBottom: 12,
                          }}
                        >
                          <Typography.Text type="secondary">{t('stage.title')}:</Typography.Text>
                          {(stages.data ?? []).length === 0 ? (
                            <Typography.Text type="secondary">—</Typography.Text>
                          ) : null}
                          {(stages.data ?? []).map((s) => (
                            <Tag
                              key={s.id}
                              color="cyan"
                              data-testid={`stage-${s.name}`}
                              closable={canEditVisits}
                              onClose={(e) => {
                                e.preventDefault();
                                void designApi.deleteStage(s.id).then(() => {
                                  void message.success(t('stage.deleted', { name: s.name }));
                                  return refresh();
                                });
                              }}
                              onClick={
                                canEditVisits ? () => setDialog({ kind: 'stage', stage: s }) : undefined
                              }
                              style={canEditVisits ? { cursor: 'pointer' } : undefined}
                            >
                              {s.name}
                            </Tag>
                          ))}
                          {canEditVisits ? (
                            <Button
                              size="small"
                              type="dashed"
                              icon={<PlusOutlined />}
                              onClick={() => setDialog({ kind: 'stage' })}
                              data-testid="stage-add"
                            >
                              {t('stage.add')}
                            </Button>
                          ) : null}
                          <span style={{ flex: 1 }} />
                          {canEditVisits ? (
                            <Button
                              type="primary"
                              size="small"
                              icon={<PlusOutlined />}
                              onClick={() => setDialog({ kind: 'visit' })}
                              data-testid="visit-add"
                            >
                              {t('visit.add')}
                            </Button>
                          ) : null}
                        </div>
                        <Table<VisitRow>
                          rowKey="id"
                          size="small"
                          columns={visitColumns}
                          dataSource={visits.data ?? []}
                          loading={visits.isFetching}
                          pagination={false}
                          data-testid="visits-table"
                          locale={{
                            emptyText: (
                              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('visit.none')} />
                            ),
                          }}
                        />
                        <Typography.Title level={5} style={{ marginTop: 20 }}>
                          {t('timeline.title')}
                        </Typography.Title>
                        <VisitTimeline visits={visits.data ?? []} />
                      </div>
                    ),
                  },
                  {
                    key: 'forms',
                    label: t('tabs.forms', { count: forms.data?.length ?? version.formCount }),
                    children: (
                      <div data-testid="forms-tab">
                        {canEditVisits && allowed('crf:form:add') ? (
                          <div style={{ marginBottom: 12, textAlign: 'right' }}>
                            <Link to={designerLink(version.id)} data-testid="form-new">
                              <PlusOutlined /> {t('form.new')}
                            </Link>
                          </div>
                        ) : null}
                        <Table<FormRow>
                          rowKey="id"
                          size="small"
                          columns={formColumns}
                          dataSource={forms.data ?? []}
                          loading={forms.isFetching}
                          pagination={false}
                          data-testid="forms-table"
                          locale={{
                            emptyText: (
                              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('form.none')} />
                            ),
                          }}
                        />
                      </div>
                    ),
                  },
                ]}
              />
            </Card>
          ) : versions.isPending ? null : (
            <Card size="small">
              <Empty description={isDev ? t('version.startHint') : t('version.noneEnv', { env })} />
            </Card>
          )}
        </Col>
      </Row>

      <OdmUnmappedDialog key={unmappedOf?.id ?? 0} version={unmappedOf} onClose={() => setUnmappedOf(null)} />
      {dialog?.kind === 'newVersion' ? (
        <NewVersionDialog
          newest={list[0]}
          onClose={() => setDialog(null)}
          onDone={(v) => {
            setDialog(null);
            setChosenId(v.id);
            void message.success(t('version.created', { name: v.name }));
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'publish' ? (
        <PublishDialog
          version={dialog.version}
          onClose={() => setDialog(null)}
          onDone={(v) => {
            setDialog(null);
            void message.success(
              t('version.published_done', { name: v.name, envs: v.publishedEnvs.join(', ') }),
            );
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'stage' && versionId !== null ? (
        <StageDialog
          versionId={versionId}
          stage={dialog.stage}
          nextOrder={(stages.data ?? []).length + 1}
          onClose={() => setDialog(null)}
          onDone={() => {
            setDialog(null);
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'visit' && versionId !== null ? (
        <VisitDialog
          versionId={versionId}
          visit={dialog.visit}
          nextOrder={nextSortOrder(visits.data ?? [])}
          stages={stages.data ?? []}
          forms={forms.data ?? []}
          language={language}
          onClose={() => setDialog(null)}
          onSaved={(v) => {
            setDialog(null);
            void message.success(t('visit.saved', { code: v.code }));
            void refresh();
          }}
        />
      ) : null}
    </div>
  );
}
