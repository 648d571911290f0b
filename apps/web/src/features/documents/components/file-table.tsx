import { useState } from 'react';
import { App, Button, Input, Popconfirm, Select, Space, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { FilePdfOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { SOURCE_FILE_STATUS, type SourceFileView } from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { usePms, useSession } from '../../session';
import { mySitesQuery, subjectDetailPath } from '../../subjects';
import { afterDocumentChange, docTypesQuery, documentsApi, filePageQuery, type FileFilters } from '../api/documents-api';
import { allowedActions, fmtSize, reviewPath } from '../document-logic';
import { FileStatusTag } from './file-status-tag';
import { FailDialog } from './fail-dialog';
import { PageImage } from './page-image';

const fmtTime = (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm');

interface Props {
  /** filters the page fixes (a message tab, a file kind, a subject) */
  fixed?: FileFilters;
  /** the review links go to the message route */
  from?: 'message';
  /** extra controls at the right of the filter row (the upload button) */
  extra?: React.ReactNode;
}

/**
 * The source-file table of /project/sourceFile, the de-identification worklists and the message tabs: thumbnails of
 * the de-identified copy, filters (site, subject, file name, type, status), sorting, 50/100/200 paging, and the
 * actions the file's status and the user's permissions allow.
 */
export function FileTable({ fixed = {}, from, extra }: Props) {
  const { t } = useTranslation('documents');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [filters, setFilters] = useState<FileFilters>({ sortField: 'createTime', sortOrder: 'desc' });
  const [ptsNo, setPtsNo] = useState('');
  const [fileName, setFileName] = useState('');
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const [failing, setFailing] = useState<SourceFileView | null>(null);
  const [discarding, setDiscarding] = useState<SourceFileView | null>(null);
  const sites = useQuery(mySitesQuery(scope));
  const types = useQuery(docTypesQuery(scope));
  const all = { ...filters, ...fixed };
  const q = useQuery(filePageQuery(scope, all, pageNumber, pageSize));
  const filtered = Boolean(filters.siteId || filters.ptsNo || filters.fileName || filters.docType || filters.status !== undefined);

  const filter = (f: Partial<FileFilters>) => {
    setFilters((x) => {
      const next = { ...x, ...f };
      return Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined && v !== ''));
    });
    paging.first();
  };

  const act = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      void message.success(done);
    } catch {
      // the API client has shown the server's translated message (a stale version, a transition refused)
    } finally {
      await afterDocumentChange(qc);
    }
  };

  const onTable: TableProps<SourceFileView>['onChange'] = (_p, _f, sorter, extra) => {
    if (extra.action !== 'sort') return;
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field = (s?.columnKey ?? 'createTime') as FileFilters['sortField'];
    filter({ sortField: s?.order ? field : 'createTime', sortOrder: s?.order === 'ascend' ? 'asc' : 'desc' });
  };
  const sortOrderOf = (k: string) =>
    all.sortField === k ? (all.sortOrder === 'desc' ? ('descend' as const) : ('ascend' as const)) : null;
  const typeLabel = (v: number) => types.data?.find((x) => x.value === v)?.label ?? String(v);

  const columns: TableColumnsType<SourceFileView> = [
    {
      title: t('col.preview'),
      key: 'thumb',
      width: 96,
      render: (_: unknown, r) => (
        <Link to={reviewPath(r, from)} aria-label={r.fileName}>
          <PageImage
            id={r.id}
            version={r.version}
            page={0}
            copy="redacted"
            width={64}
            alt={r.fileName}
            ready={r.hasRedacted}
            className="doc-thumb"
            testId={`thumb-${r.id}`}
          />
        </Link>
      ),
    },
    {
      title: t('col.fileName'),
      key: 'fileName',
      dataIndex: 'fileName',
      sorter: true,
      sortOrder: sortOrderOf('fileName'),
      ellipsis: true,
      render: (v: string, r) => (
        <Space size={4}>
          {r.kind === 'pdf' ? <FilePdfOutlined /> : null}
          <Link to={reviewPath(r, from)} data-testid={`file-open-${r.id}`}>
            {v}
          </Link>
        </Space>
      ),
    },
    {
      title: t('col.subject'),
      key: 'ptsNo',
      dataIndex: 'ptsNo',
      width: 130,
      sorter: true,
      sortOrder: sortOrderOf('ptsNo'),
      render: (v: string, r) =>
        fixed.ptsId === undefined && r.ptsId !== null ? (
          <Link to={subjectDetailPath({ ptsId: r.ptsId, ptsNo: v, designVersionId: null }, loginType, { activeKey: 'documents' })} data-testid={`file-subject-${r.id}`}>
            {v}
          </Link>
        ) : (
          v
        ),
    },
    { title: t('col.docType'), key: 'docType', dataIndex: 'docType', width: 130, render: (v: number | null) => (v === null ? '—' : typeLabel(v)) },
    { title: t('col.pages'), key: 'pages', dataIndex: 'pages', width: 70 },
    { title: t('col.size'), key: 'size', dataIndex: 'size', width: 100, sorter: true, sortOrder: sortOrderOf('size'), render: fmtSize },
    {
      title: t('col.status'),
      key: 'status',
      width: 230,
      sorter: true,
      sortOrder: sortOrderOf('status'),
      render: (_: unknown, r) => (
        <Space orientation="vertical" size={0}>
          <FileStatusTag status={r.status} />
          {r.status === SOURCE_FILE_STATUS.auditFailed && r.reason ? (
            <Typography.Text type="danger" ellipsis={{ tooltip: r.reason }} style={{ maxWidth: 210, fontSize: 12 }}>
              {r.reason}
            </Typography.Text>
          ) : null}
          {r.status === SOURCE_FILE_STATUS.submitFailed && r.errorMessage ? (
            <Typography.Text type="danger" ellipsis={{ tooltip: r.errorMessage }} style={{ maxWidth: 210, fontSize: 12 }}>
              {r.errorMessage}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    { title: t('col.uploadedBy'), key: 'createdBy', dataIndex: 'createdBy', width: 140, ellipsis: true },
    { title: t('col.uploaded'), key: 'createTime', dataIndex: 'createTime', width: 150, sorter: true, sortOrder: sortOrderOf('createTime'), render: fmtTime },
    {
      title: t('col.actions'),
      key: 'actions',
      width: 200,
      fixed: 'right',
      render: (_: unknown, r) => {
        const acts = allowedActions(r.status, has);
        return (
          <Space size={0} wrap>
            <Link to={reviewPath(r, from)}>
              <Button size="small" type="link">
                {acts.includes('edit') ? t('action.review') : t('action.view')}
              </Button>
            </Link>
            {acts.includes('submit') ? (
              <Button
                size="small"
                type="link"
                data-testid={`file-submit-${r.id}`}
                onClick={() => void act(() => documentsApi.setStatus(r.id, r.version, SOURCE_FILE_STATUS.waitingAudit), t('done.submitted'))}
              >
                {t('action.submit')}
              </Button>
            ) : null}
            {acts.includes('pass') ? (
              <Button
                size="small"
                type="link"
                data-testid={`file-pass-${r.id}`}
                onClick={() => void act(() => documentsApi.setStatus(r.id, r.version, SOURCE_FILE_STATUS.auditPassed), t('done.passed'))}
              >
                {t('action.pass')}
              </Button>
            ) : null}
            {acts.includes('fail') ? (
              <Button size="small" type="link" danger data-testid={`file-fail-${r.id}`} onClick={() => setFailing(r)}>
                {t('action.fail')}
              </Button>
            ) : null}
            {acts.includes('redeid') && r.status === SOURCE_FILE_STATUS.submitFailed ? (
              <Popconfirm title={t('confirm.redeid')} description={<div style={{ maxWidth: 320 }}>{t('confirm.redeidHint')}</div>} onConfirm={() => void act(() => documentsApi.redeid(r.id, r.version), t('done.redeid'))} okText={t('ok')} cancelText={t('cancel')}>
                <Button size="small" type="link" data-testid={`file-redeid-${r.id}`}>
                  {t('action.retry')}
                </Button>
              </Popconfirm>
            ) : null}
            {acts.includes('confirm') ? (
              <Popconfirm
                title={t('confirm.confirmUpload')}
                description={<div style={{ maxWidth: 320 }}>{t('confirm.confirmUploadHint', { ptsNo: r.ptsNo ?? '' })}</div>}
                onConfirm={() => void act(() => documentsApi.confirm(r.id, r.version), t('done.confirmed'))}
                okText={t('ok')}
                cancelText={t('cancel')}
              >
                <Button size="small" type="link" data-testid={`file-confirm-${r.id}`}>
                  {t('action.confirm')}
                </Button>
              </Popconfirm>
            ) : null}
            {acts.includes('discard') ? (
              <Button size="small" type="link" danger data-testid={`file-discard-${r.id}`} onClick={() => setDiscarding(r)}>
                {t('action.discard')}
              </Button>
            ) : null}
            {acts.includes('withdraw') ? (
              <Button
                size="small"
                type="link"
                data-testid={`file-withdraw-${r.id}`}
                onClick={() => void act(() => documentsApi.withdraw(r.id, r.version), t('done.withdrawn'))}
              >
                {t('action.withdraw')}
              </Button>
            ) : null}
          </Space>
        );
      },
    },
  ];

  return (
    <>
      <div className="doc-filters">
        {fixed.siteId === undefined && fixed.ptsId === undefined ? (
          <Select
            allowClear
            value={filters.siteId}
            onChange={(v?: number) => filter({ siteId: v })}
            placeholder={t('filter.site')}
            style={{ width: 200 }}
            loading={sites.isLoading}
            options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
            data-testid="filter-site"
          />
        ) : null}
        {fixed.ptsId === undefined ? (
          <Input.Search
            allowClear
            value={ptsNo}
            maxLength={50}
            onChange={(e) => setPtsNo(e.target.value)}
            onSearch={(v) => filter({ ptsNo: v.trim() || undefined })}
            placeholder={t('filter.ptsNo')}
            style={{ width: 180 }}
            data-testid="filter-ptsno"
          />
        ) : null}
        <Input.Search
          allowClear
          value={fileName}
          maxLength={100}
          onChange={(e) => setFileName(e.target.value)}
          onSearch={(v) => filter({ fileName: v.trim() || undefined })}
          placeholder={t('filter.fileName')}
          style={{ width: 200 }}
          data-testid="filter-filename"
        />
        <Select
          allowClear
          value={filters.docType}
          onChange={(v?: number) => filter({ docType: v })}
          placeholder={t('filter.docType')}
          style={{ width: 160 }}
          options={(types.data ?? []).map((x) => ({ value: x.value, label: x.label }))}
          data-testid="filter-doctype"
        />
        {fixed.tab === undefined && fixed.status === undefined ? (
          <Select
            allowClear
            value={filters.status}
            onChange={(v?: number) => filter({ status: v })}
            placeholder={t('filter.status')}
            style={{ width: 220 }}
            options={[-3, 0, 1, 2, 3, -1, -2, -99].map((s) => ({ value: s, label: t(`status.${s}`) }))}
            data-testid="filter-status"
          />
        ) : null}
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
        <span className="doc-filters-spacer" />
        {extra}
      </div>
      <PagedTable<SourceFileView>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        onChange={onTable}
        columns={columns}
        empty={filtered ? t('emptyFiltered') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="file-table"
      />
      <FailDialog file={failing} onClose={() => setFailing(null)} />
      <FailDialog file={discarding} mode="discard" onClose={() => setDiscarding(null)} />
    </>
  );
}
