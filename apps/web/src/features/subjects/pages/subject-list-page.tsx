import { useState } from 'react';
import {
  App,
  Button,
  Card,
  DatePicker,
  Dropdown,
  Input,
  Progress,
  Select,
  Space,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import {
  DeleteOutlined,
  EditOutlined,
  ExportOutlined,
  EyeInvisibleOutlined,
  FileDoneOutlined,
  ImportOutlined,
  MoreOutlined,
  PlusOutlined,
  SafetyOutlined,
  SwapOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { can, LIMITS, visitLabel, type Permission, type SubjectListRow, type SubjectRow } from '@esource/shared';
import { useSession, useAccess } from '../../session';
import { QueryCountTags } from '../../queries';
import { SubjectRiskDialog } from '../../verification';
import { EconsentDrawer } from '../../econsent';
import {
  mySitesQuery,
  plannedVisitsQuery,
  saveBlob,
  subjectPageQuery,
  subjectsApi,
  type SubjectFilters,
} from '../api/subjects-api';
import { ReasonDialog, StatusDialog, SubjectDialog } from '../components/subject-dialogs';
import { StatusTag } from '../components/status-tag';
import { SubjectImportDialog } from '../components/subject-import-dialog';
import { currentVisitLabel, formPercent } from '../subject-excel';
import { allowedTargets, IDENTIFIER_FIELDS, intParam, LIVE_STATUSES, rangeProblem } from '../subject-logic';
import { subjectDetailPath } from '../subject-links';
import { PagedTable } from '../../../components/paged-table';

type Dialog =
  | { kind: 'add' }
  | { kind: 'import' }
  | { kind: 'econsent' }
  | { kind: 'edit' | 'status' | 'delete' | 'risk'; subject: SubjectRow }
  | null;

/** /project/centerPtsList, /project/craPtsList, /project/sickLoop: one subject list (spec §2, §3 subject row). */
export default function SubjectListPage() {
  const { t, i18n } = useTranslation('subjects');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const location = useLocation();
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const centre = location.pathname.endsWith('/centerPtsList');

  const [params, setParams] = useSearchParams();
  const pageNumber = intParam(params.get('pageNumber'), LIMITS.firstPage);
  const setPage = (n: number) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set('pageNumber', String(n));
        return next;
      },
      { replace: true },
    );
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [filters, setFilters] = useState<SubjectFilters>({ sortField: 'ptsNo', sortOrder: 'asc' });
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [dialog, setDialog] = useState<Dialog>(null);

  const q = useQuery(subjectPageQuery(scope, filters, pageNumber, pageSize, centre));
  const sites = useQuery(mySitesQuery(scope));
  const visits = useQuery(
    plannedVisitsQuery(
      scope,
      allowed('project:visit:query') || allowed('project:version:query') || allowed('crf:form:query'),
    ),
  );
  const [exporting, setExporting] = useState(false);
  const filter = (patch: Partial<SubjectFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  const refresh = () => qc.invalidateQueries({ queryKey: ['subjects'] });

  const rangeStart = range?.[0]?.format('YYYY-MM-DD');
  const rangeEnd = range?.[1]?.format('YYYY-MM-DD');
  const rangeError = rangeProblem(rangeStart, rangeEnd);
  const onRange = (v: [Dayjs | null, Dayjs | null] | null) => {
    setRange(v);
    const s = v?.[0]?.format('YYYY-MM-DD');
    const e = v?.[1]?.format('YYYY-MM-DD');
    if (rangeProblem(s, e)) return;
    filter({ startDate: s, endDate: e });
  };

  const doExport = () => {
    setExporting(true);
    subjectsApi
      .exportXlsx(filters)
      .then((b) => {
        saveBlob(b, `${t('excel.exportFileName')}-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`);
        void message.success(t('excel.exported'));
      })
      .catch(() => undefined)
      .finally(() => setExporting(false));
  };

  const canUpdate = allowed('patient:page:update');
  const canDelete = allowed('patient:page:delete');
  const canIdentifiers = allowed('patient:identifier:query');
  const canRisk = allowed('research:page:update');
  // the server counts open and replied queries for whoever may see them (null otherwise)
  const showQueries = allowed('doubt:querying:query') || allowed('doubt:replied:query');

  // sorting only: antd calls this on a page change too, after the pager's own handler (which keeps the page)
  const onTable: TableProps<SubjectListRow>['onChange'] = (_p, _f, sorter, extra) => {
    if (extra.action !== 'sort') return;
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field = (s?.columnKey ?? 'ptsNo') as SubjectFilters['sortField'];
    filter({ sortField: s?.order ? field : 'ptsNo', sortOrder: s?.order === 'descend' ? 'desc' : 'asc' });
  };
  const sortOrderOf = (k: string) =>
    filters.sortField === k
      ? filters.sortOrder === 'desc'
        ? ('descend' as const)
        : ('ascend' as const)
      : null;

  const columns: TableColumnsType<SubjectListRow> = [
    {
      title: t('col.ptsNo'),
      key: 'ptsNo',
      dataIndex: 'ptsNo',
      width: 130,
      sorter: true,
      sortOrder: sortOrderOf('ptsNo'),
      render: (v: string, r) => (
        <Link to={subjectDetailPath(r, loginType)} data-testid={`subject-link-${v}`}>
          {v}
        </Link>
      ),
    },
    {
      title: t('col.initials'),
      dataIndex: 'initials',
      key: 'initials',
      width: 90,
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.site'),
      key: 'siteName',
      width: 200,
      sorter: true,
      sortOrder: sortOrderOf('siteName'),
      render: (_: unknown, r) => (
        <span>
          <Tag>{r.orgNo ?? r.siteId}</Tag>
          {r.siteName}
        </span>
      ),
    },
    {
      title: t('col.status'),
      key: 'status',
      dataIndex: 'status',
      width: 140,
      sorter: true,
      sortOrder: sortOrderOf('status'),
      render: (v: number, r) =>
        r.statusReason ? (
          <Tooltip title={t('statusReason', { reason: r.statusReason })}>
            <span>
              <StatusTag status={v} />
            </span>
          </Tooltip>
        ) : (
          <StatusTag status={v} />
        ),
    },
    ...(showQueries
      ? [
          {
            title: t('col.queries'),
            key: 'queries',
            width: 180,
            render: (_: unknown, r: SubjectListRow) =>
              r.queries ? (
                <QueryCountTags
                  open={r.queries.open}
                  replied={r.queries.replied}
                  target={{ ptsId: r.ptsId, ptsNo: r.ptsNo }}
                  testId={`subject-queries-${r.ptsNo}`}
                />
              ) : null,
          },
        ]
      : []),
    {
      title: t('col.firstVisitDate'),
      key: 'firstVisitDate',
      dataIndex: 'firstVisitDate',
      width: 130,
      sorter: true,
      sortOrder: sortOrderOf('firstVisitDate'),
    },
    {
      title: t('col.currentVisit'),
      key: 'currentVisit',
      width: 160,
      ellipsis: true,
      render: (_: unknown, r) => {
        const label = currentVisitLabel(r, t('allVisitsDone'));
        return (
          <Typography.Text
            type={r.currentVisitName ? undefined : 'secondary'}
            data-testid={`subject-visit-${r.ptsNo}`}
          >
            {label}
          </Typography.Text>
        );
      },
    },
    {
      title: t('col.formProgress'),
      key: 'formProgress',
      width: 140,
      render: (_: unknown, r) =>
        (r.formsTotal ?? 0) > 0 ? (
          <Tooltip title={`${r.formsDone ?? 0}/${r.formsTotal}`}>
            <div
              data-testid={`subject-progress-${r.ptsNo}`}
              style={{ display: 'flex', alignItems: 'center', gap: 8 }}
            >
              <Progress
                size="small"
                percent={formPercent(r.formsDone, r.formsTotal)}
                showInfo={false}
                style={{ width: 64, margin: 0 }}
              />
              <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
                {r.formsDone ?? 0}/{r.formsTotal}
              </Typography.Text>
            </div>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary" data-testid={`subject-progress-${r.ptsNo}`}>
            —
          </Typography.Text>
        ),
    },
    {
      title: (
        <Space size={4}>
          {t('col.identifiers')}
          {q.data?.content.some((r) => r.identifiersMasked) ? (
            <Tooltip title={t('maskedHint')}>
              <EyeInvisibleOutlined data-testid="identifiers-masked" />
            </Tooltip>
          ) : null}
        </Space>
      ),
      key: 'identifiers',
      render: (_: unknown, r) => {
        const ids = IDENTIFIER_FIELDS.filter((f) => r[f]);
        if (ids.length === 0) return <Typography.Text type="secondary">—</Typography.Text>;
        return (
          <div className="subject-identifiers" data-testid={`subject-ids-${r.ptsNo}`}>
            {ids.map((f) => (
              <div key={f}>
                <Typography.Text type="secondary">{t(`idShort.${f}`)}</Typography.Text> <code>{r[f]}</code>
              </div>
            ))}
          </div>
        );
      },
    },
    {
      title: t('col.createTime'),
      key: 'createTime',
      dataIndex: 'createTime',
      width: 150,
      sorter: true,
      sortOrder: sortOrderOf('createTime'),
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
  ];
  if (canUpdate || canDelete || canRisk)
    columns.push({
      title: t('col.actions'),
      key: 'actions',
      width: 110,
      fixed: 'right',
      render: (_: unknown, r) => {
        const items = [
          canUpdate && !r.identifiersMasked
            ? {
                key: 'edit',
                icon: <EditOutlined />,
                label: t('edit.button'),
                onClick: () => setDialog({ kind: 'edit', subject: r }),
              }
            : null,
          canUpdate && allowedTargets(r.status).length > 0
            ? {
                key: 'status',
                icon: <SwapOutlined />,
                label: t('statusChange.button'),
                onClick: () => setDialog({ kind: 'status', subject: r }),
              }
            : null,
          canRisk
            ? {
                key: 'risk',
                icon: <SafetyOutlined />,
                label: t('riskLevel'),
                onClick: () => setDialog({ kind: 'risk', subject: r }),
              }
            : null,
          canDelete
            ? {
                key: 'delete',
                icon: <DeleteOutlined />,
                danger: true,
                label: t('delete.button'),
                onClick: () => setDialog({ kind: 'delete', subject: r }),
              }
            : null,
        ].filter((x) => x !== null);
        if (items.length === 0) return null;
        return (
          <Dropdown menu={{ items }} trigger={['click']}>
            <Button size="small" icon={<MoreOutlined />} data-testid={`subject-actions-${r.ptsNo}`}>
              {t('col.actions')}
            </Button>
          </Dropdown>
        );
      },
    });

  const filtered = Boolean(
    filters.keyword ||
    filters.status ||
    filters.siteId ||
    filters.visitId ||
    filters.identifier ||
    filters.startDate ||
    filters.endDate,
  );

  return (
    <div data-testid="subject-list-page">
      <Card
        size="small"
        title={
          <Space>
            <span>
              {t(
                centre
                  ? 'title.centre'
                  : location.pathname.endsWith('/craPtsList')
                    ? 'title.monitor'
                    : 'title.site',
              )}
            </span>
            <Tag color="blue">{env}</Tag>
          </Space>
        }
        extra={
          <Space>
            {allowed('patient:page:import') ? (
              <Button
                icon={<ImportOutlined />}
                onClick={() => setDialog({ kind: 'import' })}
                data-testid="subject-import"
              >
                {t('excel.import')}
              </Button>
            ) : null}
            {allowed('patient:page:export') ? (
              <Button
                icon={<ExportOutlined />}
                loading={exporting}
                onClick={doExport}
                data-testid="subject-export"
              >
                {t('excel.export')}
              </Button>
            ) : null}
            {allowed('patient:page:add') ? (
              <Button
                icon={<FileDoneOutlined />}
                onClick={() => setDialog({ kind: 'econsent' })}
                data-testid="subject-econsent"
              >
                {t('econsent:button')}
              </Button>
            ) : null}
            {allowed('patient:page:add') ? (
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => setDialog({ kind: 'add' })}
                data-testid="subject-add"
              >
                {t('add.button')}
              </Button>
            ) : null}
          </Space>
        }
      >
        <div style={{ display: 'flex', gap: 12, flexWrap: 'wrap', marginBottom: 12 }}>
          <Input.Search
            allowClear
            placeholder={t('filter.keyword')}
            style={{ width: 220 }}
            onSearch={(v) => filter({ keyword: v.trim() || undefined })}
            data-testid="subject-search"
          />
          <Select
            allowClear
            placeholder={t('filter.status')}
            style={{ width: 160 }}
            value={filters.status}
            onChange={(v: number | undefined) => filter({ status: v })}
            options={LIVE_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
            data-testid="filter-status"
          />
          <Select
            allowClear
            placeholder={t('filter.site')}
            style={{ width: 220 }}
            value={filters.siteId}
            onChange={(v: number | undefined) => filter({ siteId: v })}
            options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
            data-testid="filter-site"
          />
          {visits.data && visits.data.length > 0 ? (
            <Select
              allowClear
              placeholder={t('filter.visit')}
              style={{ width: 200 }}
              value={filters.visitId}
              onChange={(v: number | undefined) => filter({ visitId: v })}
              options={visits.data.map((v) => ({
                value: v.id,
                label: `${v.code} ${visitLabel(v, i18n.language)}`,
              }))}
              data-testid="filter-visit"
            />
          ) : null}
          {canIdentifiers ? (
            <Input.Search
              allowClear
              placeholder={t('filter.identifier')}
              style={{ width: 220 }}
              onSearch={(v) => filter({ identifier: v.trim() || undefined })}
              data-testid="filter-identifier"
            />
          ) : null}
          <Space orientation="vertical" size={0}>
            <DatePicker.RangePicker
              value={range}
              onChange={(v) => onRange(v)}
              placeholder={[t('filter.from'), t('filter.to')]}
              status={rangeError ? 'error' : undefined}
              data-testid="filter-range"
            />
            {rangeError ? (
              <Typography.Text type="danger" style={{ fontSize: 12 }} data-testid="range-error">
                {t(`rule.range.${rangeError}`)}
              </Typography.Text>
            ) : null}
          </Space>
        </div>
        <PagedTable<SubjectListRow>
          query={q}
          page={pageNumber}
          pageSize={pageSize}
          onPage={(p, s) => {
            setPage(p);
            setPageSize(s);
          }}
          empty={filtered ? t('noMatch') : t('empty', { env })}
          texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
          rowKey="ptsId"
          columns={columns}
          onChange={onTable}
          data-testid="subject-table"
        />
      </Card>
      {dialog?.kind === 'add' || dialog?.kind === 'edit' ? (
        <SubjectDialog
          subject={dialog.kind === 'edit' ? dialog.subject : undefined}
          onClose={() => setDialog(null)}
          onSaved={(s) => {
            setDialog(null);
            void message.success(
              dialog.kind === 'add' ? t('add.done', { no: s.ptsNo }) : t('edit.done', { no: s.ptsNo }),
            );
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'import' ? (
        <SubjectImportDialog
          onClose={() => setDialog(null)}
          onImported={(r) => {
            setDialog(null);
            void message.success(t('excel.importDone', { count: r.imported }));
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'econsent' ? (
        <EconsentDrawer
          open
          onClose={() => setDialog(null)}
          scope={scope}
          sites={sites.data ?? []}
          canConfigure={allowed('source:config:update')}
          renderSubject={(s) => (
            <Link to={subjectDetailPath({ ...s, designVersionId: null }, loginType)}>{s.ptsNo}</Link>
          )}
          onAdded={() => void refresh()}
        />
      ) : null}
      {dialog?.kind === 'status' ? (
        <StatusDialog
          subject={dialog.subject}
          onClose={() => setDialog(null)}
          onSaved={(s) => {
            setDialog(null);
            void message.success(t('statusChange.done', { no: s.ptsNo, status: t(`status.${s.status}`) }));
            void refresh();
          }}
        />
      ) : null}
      {dialog?.kind === 'risk' ? <SubjectRiskDialog subject={dialog.subject} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'delete' ? (
        <ReasonDialog
          title={t('delete.title', { no: dialog.subject.ptsNo })}
          description={t('delete.description')}
          okText={t('delete.button')}
          danger
          testId="subject-delete"
          onClose={() => setDialog(null)}
          onSubmit={async (reason) => {
            await subjectsApi.remove(dialog.subject.ptsId, reason);
            void message.success(t('delete.done', { no: dialog.subject.ptsNo }));
            setDialog(null);
            await refresh();
          }}
        />
      ) : null}
    </div>
  );
}
