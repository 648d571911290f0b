import { useState } from 'react';
import { Alert, Button, Collapse, Empty, List, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { ExperimentOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  visitLabel,
  type OcrAssociationResult,
  type OcrProposal,
  type PageRegion,
  type SourceFileDetail,
} from '@esource/shared';
import { useSession } from '../../session';
import { scheduleQuery, subjectDetailPath } from '../../subjects';
import { readableNumber } from '../../prefill';
import { ocrAssociationApi } from '../api/ocr-association-api';

export interface OcrAssociationProps {
  /** a subject's file (an ISF document has no eCRF to fill) */
  file: SourceFileDetail & { ptsId: number; ptsNo: string };
  /** the region shown on the page (highlighted row) */
  shown: PageRegion | null;
  /** show a region: the page turns to it and outlines it */
  onShow: (r: PageRegion) => void;
}

const FLAG_COLOR = { H: 'red', L: 'blue', A: 'orange' } as const;
const sameRegion = (a: PageRegion | null, b: PageRegion) =>
  a !== null &&
  a.page === b.page &&
  a.x === b.x &&
  a.y === b.y &&
  a.width === b.width &&
  a.height === b.height;

/**
 * OCR association on the source-file review screen (issue 12 item 6): 'Propose eCRF values' reads the lab results of
 * the document and proposes them for the subject's eCRF through the mapping rules and synonyms
 * (POST /kbms/ai/kbmsCrfRules, idempotent). Each proposal shows the item, the value in the item's unit and the visit;
 * a click outlines the region it was read from. The values are accepted in the pre-fill review of the form (linked).
 */
export function OcrAssociation({ file, shown, onShow }: OcrAssociationProps) {
  const { t } = useTranslation('documents');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const language = useSession((s) => s.language);
  const loginType = useSession((s) => s.loginType);
  const [result, setResult] = useState<OcrAssociationResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [visitId, setVisitId] = useState<number | undefined>(undefined);
  const needsVisit = result !== null && result.visit === null;
  const schedule = useQuery({
    ...scheduleQuery({ env, projectId }, file.ptsId),
    enabled: needsVisit && projectId !== null,
  });
  const ready = file.status >= 1;

  const run = async (visit?: number) => {
    setBusy(true);
    try {
      setResult(await ocrAssociationApi.associate(file.id, visit));
    } catch {
      // the API client has shown the error
    } finally {
      setBusy(false);
    }
  };

  const label = (p: OcrProposal) => (language === 'en_US' && p.labelEn ? p.labelEn : p.label);
  const formName = (p: OcrProposal) => (language === 'en_US' && p.formNameEn ? p.formNameEn : p.formName);
  const reviewLink = (p: OcrProposal) =>
    result?.visit
      ? subjectDetailPath({ ptsId: file.ptsId, ptsNo: file.ptsNo, designVersionId: null }, loginType, {
          visitId: result.visit.visitId,
          formId: p.formId,
        })
      : null;
  const value = (p: OcrProposal) => {
    if (p.problem)
      return (
        <Tooltip title={p.problemMessage}>
          <Tag color="red">{t('assoc.problem')}</Tag>
        </Tooltip>
      );
    const v =
      typeof p.value === 'number'
        ? readableNumber(p.value)
        : typeof p.value === 'string'
          ? p.value
          : Array.isArray(p.value)
            ? p.value.map(String).join(', ')
            : '—';
    return (
      <span>
        {v}
        {p.unit ? ` ${p.unit}` : ''}
      </span>
    );
  };

  return (
    <div className="doc-assoc" data-testid="ocr-association">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('assoc.intro')}
      </Typography.Paragraph>
      {ready ? null : <Alert type="info" showIcon title={t('assoc.notReady')} style={{ marginBottom: 8 }} />}
      <Space wrap style={{ marginBottom: 8 }}>
        <Button
          type="primary"
          icon={<ExperimentOutlined />}
          loading={busy}
          disabled={!ready}
          onClick={() => void run(visitId)}
          data-testid="assoc-run"
        >
          {t('assoc.run')}
        </Button>
      </Space>
      {result ? (
        <>
          <Typography.Paragraph style={{ marginBottom: 8 }} data-testid="assoc-summary">
            {t('assoc.summary', {
              count: result.count,
              created: result.created,
              updated: result.updated,
              unchanged: result.unchanged,
            })}
            {result.withdrawn ? ` ${t('assoc.withdrawn', { count: result.withdrawn })}` : ''}
          </Typography.Paragraph>
          {result.visit ? (
            <Typography.Paragraph style={{ marginBottom: 8 }} data-testid="assoc-visit">
              {t('assoc.visit', {
                visit: visitLabel(result.visit, language),
                date: result.effectiveDate ?? '—',
              })}
              {result.reportDate ? (
                <Typography.Text type="secondary">{` · ${t('assoc.reportDate', { date: result.reportDate })}`}</Typography.Text>
              ) : null}
            </Typography.Paragraph>
          ) : (
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 8 }}
              title={result.reportDate ? t('assoc.noVisitForDate', { date: result.reportDate }) : t('assoc.noVisit')}
              data-testid="assoc-no-visit"
              description={
                <Space wrap>
                  <Select
                    style={{ minWidth: 200 }}
                    placeholder={t('assoc.chooseVisit')}
                    loading={schedule.isLoading}
                    value={visitId}
                    onChange={setVisitId}
                    options={(schedule.data ?? [])
                      .filter((v) => !v.unscheduled)
                      .map((v) => ({
                        value: v.visitId,
                        label: `${visitLabel(v, language)}${v.planned ? ` (${v.planned})` : ''}`,
                      }))}
                    data-testid="assoc-visit-select"
                  />
                  <Button
                    disabled={visitId === undefined}
                    loading={busy}
                    onClick={() => void run(visitId)}
                    data-testid="assoc-run-visit"
                  >
                    {t('assoc.runForVisit')}
                  </Button>
                </Space>
              }
            />
          )}
          {result.proposals.length ? (
            <Table<OcrProposal>
              size="small"
              pagination={false}
              rowKey={(p) => `${p.recordId}-${p.formId}-${p.variable}`}
              dataSource={result.proposals}
              data-testid="assoc-proposals"
              rowClassName={(p) => (sameRegion(shown, p.region) ? 'doc-box-row-selected' : 'doc-assoc-row')}
              onRow={(p) => ({ onClick: () => onShow(p.region) })}
              columns={[
                {
                  key: 'item',
                  title: t('assoc.col.item'),
                  render: (_, p) => (
                    <span>
                      {label(p)}
                      <br />
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {formName(p)}
                      </Typography.Text>
                    </span>
                  ),
                },
                { key: 'value', title: t('assoc.col.value'), render: (_, p) => value(p) },
                {
                  key: 'read',
                  title: t('assoc.col.read'),
                  render: (_, p) => (
                    <span>
                      {p.sourceValue}
                      {p.sourceUnit ? ` ${p.sourceUnit}` : ''}
                      {p.flag ? (
                        <Tag color={FLAG_COLOR[p.flag]} style={{ marginInlineStart: 4 }}>
                          {t(`assoc.flag.${p.flag}`)}
                        </Tag>
                      ) : null}
                      {p.range ? (
                        <>
                          <br />
                          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                            {t('assoc.range', { range: p.range })}
                          </Typography.Text>
                        </>
                      ) : null}
                    </span>
                  ),
                },
                {
                  key: 'review',
                  title: t('assoc.col.visit'),
                  render: (_, p) => {
                    const to = reviewLink(p);
                    return to && result.visit ? (
                      <Link
                        to={to}
                        onClick={(e) => e.stopPropagation()}
                        data-testid={`assoc-review-${p.variable}`}
                      >
                        {visitLabel(result.visit, language)}
                      </Link>
                    ) : (
                      '—'
                    );
                  },
                },
              ]}
            />
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('assoc.none')} />
          )}
          {result.proposals.length ? (
            <Typography.Paragraph type="secondary" style={{ marginTop: 8, fontSize: 12 }}>
              {t('assoc.reviewHint')}
            </Typography.Paragraph>
          ) : null}
          {result.unmatched.length ? (
            <Collapse
              size="small"
              style={{ marginTop: 8 }}
              items={[
                {
                  key: 'unmatched',
                  label: t('assoc.unmatched', { count: result.unmatched.length }),
                  children: (
                    <>
                      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
                        {t('assoc.unmatchedHint')}
                      </Typography.Paragraph>
                      <List
                        size="small"
                        dataSource={result.unmatched}
                        data-testid="assoc-unmatched"
                        renderItem={(u) => (
                          <List.Item
                            className={sameRegion(shown, u.region) ? 'doc-box-row-selected' : 'doc-assoc-row'}
                            onClick={() => onShow(u.region)}
                          >
                            {u.name}: {u.sourceValue}
                            {u.sourceUnit ? ` ${u.sourceUnit}` : ''}
                          </List.Item>
                        )}
                      />
                    </>
                  ),
                },
              ]}
            />
          ) : null}
        </>
      ) : null}
    </div>
  );
}
