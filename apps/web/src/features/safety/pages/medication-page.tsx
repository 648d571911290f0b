import { useState } from 'react';
import { Button, Card, Input, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import type { SortOrder } from 'antd/es/table/interface';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { MedicationSubjectRow } from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { useSession } from '../../session';
import { SiteFilter } from '../../subjects';
import { medicationSubjectsQuery, type MedicationFilters } from '../api/safety-api';

type SortField = NonNullable<MedicationFilters['sortField']>;

export function medicationDetailPath(r: Pick<MedicationSubjectRow, 'ptsId' | 'ptsNo'>): string {
  return `/project/medicationDetail?${new URLSearchParams({ ptsId: String(r.ptsId), ptsNo: r.ptsNo }).toString()}`;
}

/**
 * /project/medication: every subject with medications found in its hospital data or judged, with how many are judged
 * yes, still to judge, judged no, its judged adverse events and the latest start; filters (site, subject, drug),
 * sorting, 50/100/200 paging; a row opens the subject's medication timeline.
 */
export default function MedicationPage() {
  const { t } = useTranslation('safety');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const paging = useUrlPaging();
  const [filters, setFilters] = useState<MedicationFilters>({});
  const [ptsNo, setPtsNo] = useState('');
  const [keyword, setKeyword] = useState('');
  const [sort, setSort] = useState<{ field: SortField; order: 'asc' | 'desc' }>({ field: 'ptsNo', order: 'asc' });
  const q = useQuery(medicationSubjectsQuery({ env, projectId }, { ...filters, sortField: sort.field, sortOrder: sort.order }, paging.pageNumber, paging.pageSize));
  const filter = (f: Partial<MedicationFilters>) => {
    setFilters((x) => Object.fromEntries(Object.entries({ ...x, ...f }).filter(([, v]) => v !== undefined && v !== '')));
    paging.first();
  };
  const order = (f: SortField): SortOrder => (sort.field === f ? (sort.order === 'asc' ? 'ascend' : 'descend') : null);
  const columns: TableColumnsType<MedicationSubjectRow> = [
    {
      title: t('col.subject'),
      key: 'ptsNo',
      width: 130,
      sorter: true,
      sortOrder: order('ptsNo'),
      render: (_: unknown, r) => (
        <Link to={medicationDetailPath(r)} data-testid={`medication-open-${r.ptsId}`}>
          {r.ptsNo}
        </Link>
      ),
    },
    { title: t('col.site'), key: 'site', dataIndex: 'siteName', width: 160, ellipsis: true },
    {
      title: t('medication.drugs'),
      key: 'drugs',
      render: (_: unknown, r) => (
        <Space size={[4, 4]} wrap>
          {r.drugs.map((d) => (
            <Tag key={d}>{d}</Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('medication.count'),
      key: 'medications',
      width: 200,
      sorter: true,
      sortOrder: order('medications'),
      render: (_: unknown, r) => (
        <Space size={4}>
          <Tooltip title={t('state.yes')}>
            <Tag color="green">{r.yes}</Tag>
          </Tooltip>
          <Tooltip title={t('state.toJudge')}>
            <Tag color="gold">{r.toJudge}</Tag>
          </Tooltip>
          <Tooltip title={t('state.no')}>
            <Tag>{r.no}</Tag>
          </Tooltip>
        </Space>
      ),
    },
    { title: t('medication.events'), key: 'events', dataIndex: 'events', width: 110 },
    { title: t('medication.lastStart'), key: 'lastStart', width: 130, sorter: true, sortOrder: order('lastStart'), render: (_: unknown, r) => r.lastStart ?? '—' },
  ];
  const onTable: TableProps<MedicationSubjectRow>['onChange'] = (pg, _f, sorter, extra) => {
    if (extra.action === 'sort') {
      const s = Array.isArray(sorter) ? sorter[0] : sorter;
      setSort(s?.order ? { field: s.columnKey as SortField, order: s.order === 'descend' ? 'desc' : 'asc' } : { field: 'ptsNo', order: 'asc' });
      paging.first();
      return;
    }
    paging.onPage(pg.current ?? 1, pg.pageSize ?? paging.pageSize);
  };
  return (
    <Card size="small" data-testid="medication-page">
      <Typography.Paragraph type="secondary">{t('medication.intro')}</Typography.Paragraph>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 12 }}>
        <SiteFilter value={filters.siteId} onChange={(v) => filter({ siteId: v })} placeholder={t('filter.site')} testId="medication-filter-site" />
        <Input.Search allowClear value={ptsNo} maxLength={50} onChange={(e) => setPtsNo(e.target.value)} onSearch={(v) => filter({ ptsNo: v.trim() || undefined })} placeholder={t('filter.ptsNo')} style={{ width: 160 }} data-testid="medication-filter-ptsno" />
        <Input.Search allowClear value={keyword} maxLength={100} onChange={(e) => setKeyword(e.target.value)} onSearch={(v) => filter({ keyword: v.trim() || undefined })} placeholder={t('medication.filterDrug')} style={{ width: 200 }} data-testid="medication-filter-drug" />
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
      </div>
      <PagedTable<MedicationSubjectRow>
        rowKey="ptsId"
        query={q}
        page={paging.pageNumber}
        pageSize={paging.pageSize}
        onChange={onTable}
        columns={columns}
        empty={Object.keys(filters).length ? t('emptyFiltered') : t('medication.empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="medication-table"
      />
    </Card>
  );
}
