import { useState } from 'react';
import { Button, Card, Input, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { FilePdfOutlined, ReloadOutlined, SettingOutlined, UploadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { IsfDocRow } from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { SiteFilter } from '../../subjects';
import { FileStatusTag, PageImage, reviewPath } from '../../documents';
import { isfPageQuery, type IsfFilters } from '../api/isf-api';
import { IsfUploadDialog, type UploadTarget } from '../components/isf-upload-dialog';
import { KindsDrawer } from '../components/kinds-drawer';
import { VersionsTable } from '../components/versions-table';
import '../isf.css';

const fmtTime = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');

/**
 * The investigator site file (spec §2 /project/researchFile): one row per document kind and site of the caller's
 * sites — whether it is required, its newest version with its de-identification status, the history of versions,
 * uploading a new version, and (data manager) the document kinds. Filters by site, name, status and required;
 * 50/100/200 paging.
 */
export default function IsfPage() {
  const { t } = useTranslation('isf');
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [filters, setFilters] = useState<IsfFilters>({});
  const [keyword, setKeyword] = useState('');
  const paging = useUrlPaging();
  const { pageNumber, pageSize } = paging;
  const [uploading, setUploading] = useState<UploadTarget | null>(null);
  const [kindsOpen, setKindsOpen] = useState(false);
  const q = useQuery(isfPageQuery(scope, filters, pageNumber, pageSize));
  const filtered = Object.keys(filters).length > 0;
  const canConfig = has('isf:kind:config');
  const canUpload = has('isf:file:upload');

  const filter = (f: Partial<IsfFilters>) => {
    setFilters((x) => Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')));
    paging.first();
  };

  const columns: TableColumnsType<IsfDocRow> = [
    {
      title: t('col.kind'),
      key: 'kind',
      render: (_: unknown, r) => (
        <Space size={6} wrap>
          <Typography.Text strong>{r.kind.label}</Typography.Text>
          {r.kind.required ? <Tag color="blue">{t('tag.required')}</Tag> : <Tag>{t('tag.optional')}</Tag>}
        </Space>
      ),
    },
    { title: t('col.site'), key: 'site', dataIndex: 'siteName', width: 170, ellipsis: true },
    {
      title: t('col.state'),
      key: 'state',
      width: 250,
      render: (_: unknown, r) =>
        r.latest ? (
          <Space size={4} orientation="vertical">
            <Space size={4}>
              <Tag>{t('versionNo', { n: r.latest.isfVersion })}</Tag>
              <FileStatusTag status={r.latest.status} />
            </Space>
            {r.missing ? (
              <Tag color="red" data-testid={`isf-missing-${r.kind.id}-${r.siteId}`}>
                {t('tag.missing')}
              </Tag>
            ) : null}
          </Space>
        ) : r.missing ? (
          <Tag color="red" data-testid={`isf-missing-${r.kind.id}-${r.siteId}`}>
            {t('tag.missing')}
          </Tag>
        ) : (
          <Typography.Text type="secondary">{t('tag.none')}</Typography.Text>
        ),
    },
    {
      title: t('col.latest'),
      key: 'latest',
      render: (_: unknown, r) =>
        r.latest ? (
          <Space size={8}>
            <Link to={reviewPath(r.latest)} aria-label={r.latest.fileName}>
              <PageImage id={r.latest.id} version={r.latest.version} page={0} copy="redacted" width={48} alt={r.latest.fileName} ready={r.latest.hasRedacted} className="isf-thumb" />
            </Link>
            <Space size={4}>
              {r.latest.kind === 'pdf' ? <FilePdfOutlined /> : null}
              <Link to={reviewPath(r.latest)} data-testid={`isf-open-${r.latest.id}`}>
                <Typography.Text ellipsis={{ tooltip: r.latest.fileName }} style={{ maxWidth: 200 }}>
                  {r.latest.fileName}
                </Typography.Text>
              </Link>
            </Space>
          </Space>
        ) : (
          '—'
        ),
    },
    { title: t('col.uploadedBy'), key: 'by', width: 140, ellipsis: true, render: (_: unknown, r) => r.latest?.createdBy ?? '—' },
    { title: t('col.uploaded'), key: 'time', width: 150, render: (_: unknown, r) => (r.latest ? fmtTime(r.latest.createTime) : '—') },
    { title: t('col.versions'), key: 'versions', dataIndex: 'versions', width: 90 },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 150,
      fixed: 'right',
      render: (_: unknown, r) =>
        canUpload ? (
          <Button
            size="small"
            type="link"
            icon={<UploadOutlined />}
            onClick={() => setUploading({ kind: r.kind, siteId: r.siteId, siteName: r.siteName, next: r.versions + 1 })}
            data-testid={`isf-upload-${r.kind.id}-${r.siteId}`}
          >
            {r.latest ? t('action.uploadNew') : t('action.upload')}
          </Button>
        ) : null,
    },
  ];

  return (
    <Card
      size="small"
      title={t('title')}
      extra={
        canConfig ? (
          <Button icon={<SettingOutlined />} onClick={() => setKindsOpen(true)} data-testid="isf-kinds">
            {t('action.kinds')}
          </Button>
        ) : null
      }
      data-testid="isf-page"
    >
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      <div className="isf-filters">
        <SiteFilter value={filters.siteId} onChange={(v) => filter({ siteId: v })} placeholder={t('filter.site')} testId="isf-filter-site" />
        <Input.Search
          allowClear
          value={keyword}
          maxLength={100}
          onChange={(e) => setKeyword(e.target.value)}
          onSearch={(v) => filter({ keyword: v.trim() || undefined })}
          placeholder={t('filter.keyword')}
          style={{ width: 200 }}
          data-testid="isf-filter-keyword"
        />
        <Select
          allowClear
          value={filters.state}
          onChange={(v?: IsfFilters['state']) => filter({ state: v })}
          placeholder={t('filter.state')}
          style={{ width: 200 }}
          options={[
            { value: 'missing', label: t('filter.missing') },
            { value: 'uploaded', label: t('filter.uploaded') },
          ]}
          data-testid="isf-filter-state"
        />
        <Select
          allowClear
          value={filters.required === undefined ? undefined : String(filters.required)}
          onChange={(v?: string) => filter({ required: v === undefined ? undefined : v === 'true' })}
          placeholder={t('filter.required')}
          style={{ width: 180 }}
          options={[
            { value: 'true', label: t('filter.requiredOnly') },
            { value: 'false', label: t('filter.optionalOnly') },
          ]}
          data-testid="isf-filter-required"
        />
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
      </div>
      <PagedTable<IsfDocRow>
        rowKey={(r) => `${r.kind.id}-${r.siteId}`}
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        expandable={{
          rowExpandable: (r) => r.versions > 0,
          expandedRowRender: (r) => <VersionsTable kind={r.kind} siteId={r.siteId} />,
        }}
        empty={
          filtered ? (
            t('emptyFiltered')
          ) : canConfig ? (
            <Space orientation="vertical">
              {t('emptyConfig')}
              <Button type="primary" onClick={() => setKindsOpen(true)}>
                {t('kinds.add')}
              </Button>
            </Space>
          ) : (
            t('empty')
          )
        }
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="isf-table"
      />
      <IsfUploadDialog target={uploading} onClose={() => setUploading(null)} />
      {canConfig ? <KindsDrawer open={kindsOpen} onClose={() => setKindsOpen(false)} /> : null}
    </Card>
  );
}
