import { useState } from 'react';
import {
  Badge,
  Button,
  Card,
  DatePicker,
  Empty,
  Input,
  Pagination,
  Result,
  Skeleton,
  Space,
  Tag,
  Timeline,
  Typography,
} from 'antd';
import { HistoryOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { LIMITS, SOURCE_DOC_TYPES, type SourceRecordRow } from '@esource/shared';
import { tablePagination } from '../../../lib/pagination';
import { useSession } from '../../session';
import { subjectDetailPath, subjectQuery } from '../../subjects';
import { recordsQuery, typeListQuery, type RecordFilters } from '../api/sources-api';
import { LatestExtraction } from '../components/latest-extraction';
import { RecordDrawer } from '../components/record-drawer';
import { RunExtractionButton } from '../components/run-extraction';
import { DocTypeTag } from '../components/source-tags';
import { docTypeKey, formatValue, groupByDate } from '../source-logic';
import '../sources.css';

/** A positive integer query parameter, else null. */
export function idParam(v: string | null): number | null {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * /project/sourceData?ptsId=: a subject's source records from the hospital systems — counts by document type,
 * filters (type, date range, text), a timeline grouped by day (type, code, display, value with unit, version
 * badge when the hospital changed it), a drawer with the raw payload and its versions, and Run extraction with
 * the latest task's progress and failure reason (retry).
 */
export default function SourceDataPage() {
  const { t } = useTranslation('sources');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const loginType = useSession((s) => s.loginType);
  const scope = { env, projectId };
  const [params, setParams] = useSearchParams();
  const ptsId = idParam(params.get('ptsId'));
  const docType = idParam(params.get('docType')) ?? undefined;
  const [range, setRange] = useState<[Dayjs, Dayjs] | null>(null);
  const [text, setText] = useState<string | undefined>();
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [open, setOpen] = useState<number | null>(null);

  const subject = useQuery(subjectQuery(scope, ptsId));
  const types = useQuery({ ...typeListQuery(scope, ptsId), enabled: Boolean(subject.data) });
  const filters: RecordFilters = {
    ...(docType ? { docType } : {}),
    ...(range ? { dateFrom: range[0].format('YYYY-MM-DD'), dateTo: range[1].format('YYYY-MM-DD') } : {}),
    ...(text ? { text } : {}),
  };
  const records = useQuery({
    ...recordsQuery(scope, ptsId, filters, pageNumber, pageSize),
    enabled: Boolean(subject.data),
  });
  const filtered = Boolean(docType || range || text);

  if (ptsId === null)
    return (
      <Result
        status="info"
        title={t('data.noSubject')}
        subTitle={t('data.noSubjectHint')}
        data-testid="source-data-no-subject"
      />
    );
  if (subject.isError)
    return (
      <Result
        status="403"
        title={t('data.unavailable')}
        subTitle={subject.error.message}
        data-testid="source-data-unavailable"
      />
    );
  if (!subject.data) return <Skeleton active />;
  const s = subject.data;
  const total = (types.data ?? []).reduce((a, x) => a + x.count, 0);
  const countOf = (n: number) => types.data?.find((x) => x.docType === n);
  const setDocType = (v: number | 'all') => {
    setPage(LIMITS.firstPage);
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      if (v === 'all') next.delete('docType');
      else next.set('docType', String(v));
      return next;
    });
  };

  return (
    <div data-testid="source-data-page">
      <Card size="small">
        <div className="source-head">
          <Space size={12} wrap>
            <Typography.Title level={5} style={{ margin: 0 }} data-testid="source-subject-no">
              {s.ptsNo}
            </Typography.Title>
            <span>
              <Tag>{s.orgNo ?? s.siteId}</Tag>
              {s.siteName}
            </span>
            <Link to={subjectDetailPath(s, loginType)}>{t('data.toSubject')}</Link>
            <Link to={`/project/SickFile/gatherPtsData/detail?ptsId=${s.ptsId}`} data-testid="to-gather">
              <HistoryOutlined /> {t('data.toGather')}
            </Link>
          </Space>
          <RunExtractionButton ptsId={s.ptsId} />
        </div>
        <div style={{ marginTop: 8 }}>
          <LatestExtraction ptsId={s.ptsId} />
        </div>
      </Card>

      <Card size="small" style={{ marginTop: 12 }}>
        <div className="source-types" data-testid="source-types">
          <Tag.CheckableTag checked={!docType} onChange={() => setDocType('all')} data-testid="type-all">
            {t('data.allTypes', { count: total })}
          </Tag.CheckableTag>
          {SOURCE_DOC_TYPES.map((k, i) => {
            const c = countOf(i + 1);
            return (
              <Tag.CheckableTag
                key={k}
                checked={docType === i + 1}
                onChange={() => setDocType(i + 1)}
                data-testid={`type-${k}`}
              >
                {t(`docType.${k}`)} <span className="source-type-count">{c?.count ?? 0}</span>
                {c?.changed ? (
                  <span title={t('data.changedCount', { count: c.changed })}>
                    <Badge color="orange" style={{ marginInlineStart: 4 }} />
                  </span>
                ) : null}
              </Tag.CheckableTag>
            );
          })}
        </div>
        <div className="source-filters">
          <DatePicker.RangePicker
            value={range}
            onChange={(v) => {
              setPage(LIMITS.firstPage);
              setRange(v && v[0] && v[1] ? [v[0], v[1]] : null);
            }}
            placeholder={[t('filters.from'), t('filters.to')]}
            data-testid="source-filter-dates"
          />
          <Input.Search
            allowClear
            maxLength={100}
            placeholder={t('filters.text')}
            style={{ width: 280 }}
            onSearch={(v) => {
              setPage(LIMITS.firstPage);
              setText(v.trim() || undefined);
            }}
            data-testid="source-filter-text"
          />
          <span style={{ flex: 1 }} />
          <Button icon={<ReloadOutlined />} onClick={() => void records.refetch()} aria-label={t('refresh')} />
        </div>

        {records.isError && !records.data ? (
          <Result
            status="warning"
            title={t('loadFailed')}
            subTitle={records.error.message}
            extra={<Button onClick={() => void records.refetch()}>{t('retry')}</Button>}
          />
        ) : records.isLoading ? (
          <Skeleton active />
        ) : !records.data?.content.length ? (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            data-testid="source-records-empty"
            description={filtered ? t('data.emptyFiltered') : t('data.empty')}
          />
        ) : (
          <>
            <Timeline
              className="source-timeline"
              data-testid="source-timeline"
              items={groupByDate(records.data.content).map((g) => ({
                key: g.date ?? 'none',
                content: (
                  <div className="source-day-rows">
                    <Typography.Text strong className="source-day">
                      {g.date ? dayjs(g.date).format('YYYY-MM-DD') : t('data.noDate')}
                    </Typography.Text>
                    {g.rows.map((r) => (
                      <RecordLine key={r.id} r={r} onOpen={() => setOpen(r.id)} />
                    ))}
                  </div>
                ),
              }))}
            />
            <Pagination
              {...tablePagination({
                page: pageNumber,
                pageSize,
                total: records.data.totalCount,
                showTotal: (n) => t('total', { count: n }),
                onChange: (p, size) => {
                  setPage(p);
                  setPageSize(size);
                },
              })}
              align="end"
            />
          </>
        )}
      </Card>
      <RecordDrawer id={open} onClose={() => setOpen(null)} />
    </div>
  );
}

function RecordLine({ r, onOpen }: { r: SourceRecordRow; onOpen: () => void }) {
  const { t } = useTranslation('sources');
  const key = docTypeKey(r.docType);
  return (
    <div className="source-record" data-testid={`record-${r.id}`} data-doc-type={key ?? r.docType}>
      <DocTypeTag docType={r.docType} />
      <Button type="link" className="source-record-title" onClick={onOpen} data-testid={`record-open-${r.id}`}>
        {r.display ?? r.code ?? r.resourceType}
      </Button>
      {r.code ? (
        <Typography.Text type="secondary" className="source-record-code">
          {r.code}
        </Typography.Text>
      ) : null}
      <Typography.Text className="source-record-value" strong title={formatValue(r, true)}>
        {formatValue(r)}
      </Typography.Text>
      <Typography.Text type="secondary" className="source-record-time">
        {r.effectiveAt ? dayjs(r.effectiveAt).format('HH:mm') : ''}
      </Typography.Text>
      {r.version > 1 ? (
        <Tag color="orange" data-testid={`record-changed-${r.id}`}>
          {t('data.changed', { version: r.version })}
        </Tag>
      ) : null}
    </div>
  );
}
