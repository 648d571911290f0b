import { useState } from 'react';
import {
  Alert,
  App,
  Button,
  Card,
  DatePicker,
  Descriptions,
  Progress,
  Empty,
  Form,
  Input,
  Modal,
  Result,
  Select,
  Skeleton,
  Space,
  Tabs,
  Tag,
  Typography,
} from 'antd';
import {
  CalendarOutlined,
  EditOutlined,
  FileTextOutlined,
  PlusOutlined,
  SafetyCertificateOutlined,
  SafetyOutlined,
  SwapOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { Dayjs } from 'dayjs';
import {
  can,
  CRF_STATUS,
  type FormRow,
  type Permission,
  type ScheduleVisit,
  type SignatureMeaning,
  type SubjectRow,
  type VisitRow,
  visitLabel,
} from '@esource/shared';
import { api } from '../../../lib/api-client';
import { useSession, useAccess } from '../../session';
import { SubjectRiskDialog, SubjectRiskTag, VerifyVisitButton } from '../../verification';
import { QueryCountTags } from '../../queries';
import { CrfEntry, CrfStatusTag, ecrfApi, SignatureDialog } from '../../ecrf';
import { PendingReviewTag } from '../../ddc';
import { SubjectSourceTab } from '../../sources';
import { SubjectDocumentsTab } from '../../documents';
import { CasebookPrintButton } from '../../exports';
import { scheduleQuery, subjectQuery, subjectsApi, visitQueriesQuery } from '../api/subjects-api';
import { StatusDialog, SubjectDialog } from '../components/subject-dialogs';
import { StatusTag } from '../components/status-tag';
import { VisitStateTag } from '../components/visit-state-tag';
import { allowedTargets, IDENTIFIER_FIELDS, intParam } from '../subject-logic';
import '../subjects.css';
import { currentVisitLabel, formPercent } from '../subject-excel';
import { validFields } from '../../../lib/validate-form';

const ENTRY_KEYS = ['visitId', 'formId', 'unscheduledId', 'repeatNo'] as const;

/** /project/SickFile and /project/ptsDetail (query ptsId, activeKey=pts360): one subject, their visits and forms. */
export default function SubjectDetailPage() {
  const { t, i18n } = useTranslation('subjects');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const ptsIdRaw = Number(params.get('ptsId'));
  const ptsId = Number.isInteger(ptsIdRaw) && ptsIdRaw > 0 ? ptsIdRaw : null;
  const activeKey = params.get('activeKey') ?? 'pts360';
  // form values and history need crf:result:query (the server refuses them otherwise; an AE reviewer has none)
  const pageAccess = useAccess();
  const canReadForms = Boolean(pageAccess && can(pageAccess.pms, { anyOf: ['crf:result:query'] }));
  const subject = useQuery(subjectQuery(scope, ptsId));
  const schedule = useQuery({ ...scheduleQuery(scope, ptsId), enabled: Boolean(subject.data) });

  const setQuery = (patch: Record<string, string | number | null>) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) next.delete(k);
        else next.set(k, String(v));
      }
      return next;
    });

  if (ptsId === null) return <Result status="404" title={t('detail.noSubject')} />;
  if (subject.isError)
    return (
      <Result
        status="403"
        title={t('detail.unavailable')}
        subTitle={subject.error.message}
        data-testid="subject-unavailable"
        extra={<Link to="/overview">{t('detail.back')}</Link>}
      />
    );
  if (!subject.data) return <Skeleton active />;
  const s = subject.data;

  const entryVisitId = params.get('visitId');
  const entryFormId = params.get('formId');
  const entry =
    entryVisitId && entryFormId
      ? {
          ptsId: s.ptsId,
          visitId: intParam(entryVisitId, 0),
          formId: intParam(entryFormId, 0),
          unscheduledId: Math.max(0, Number(params.get('unscheduledId')) || 0),
          repeatNo: intParam(params.get('repeatNo'), 1),
        }
      : null;
  const entryVisit = entry
    ? schedule.data?.find((v) => v.visitId === entry.visitId && v.unscheduledId === entry.unscheduledId)
    : undefined;
  const entryForm = entryVisit?.forms.find((f) => f.formId === entry?.formId);

  return (
    <div data-testid="subject-detail-page">
      <SubjectHeader subject={s} visits={schedule.data} />
      <Card size="small" style={{ marginTop: 12 }}>
        <Tabs
          activeKey={activeKey}
          onChange={(k) => setQuery({ activeKey: k })}
          items={[
            {
              key: 'pts360',
              label: t('detail.tab.visits'),
              children: (
                <VisitsTab
                  subject={s}
                  visits={schedule.data}
                  loading={schedule.isLoading}
                  error={schedule.error?.message}
                  open={(v, formId, repeatNo) =>
                    setQuery({ visitId: v.visitId, formId, unscheduledId: v.unscheduledId, repeatNo })
                  }
                />
              ),
            },
            {
              key: 'source',
              label: t('detail.tab.source'),
              children: <SubjectSourceTab ptsId={s.ptsId} />,
            },
            {
              key: 'documents',
              label: t('detail.tab.documents'),
              children: <SubjectDocumentsTab ptsId={s.ptsId} ptsNo={s.ptsNo} />,
            },
          ]}
        />
      </Card>
      {entry && canReadForms ? (
        <CrfEntry
          key={`${entry.visitId}-${entry.formId}-${entry.unscheduledId}-${entry.repeatNo}`}
          crfKey={entry}
          context={`${s.ptsNo} · ${entryVisit ? `${entryVisit.code} ${visitLabel(entryVisit, i18n.language)}` : ''}`}
          repeats={entryForm?.instances.map((i) => i.repeatNo)}
          onClose={() => setQuery(Object.fromEntries(ENTRY_KEYS.map((k) => [k, null])))}
          // a save, certify, uncertify or deleted repeat moves the header's form progress and current visit
          // (['subjects', 'one']), the schedule and the lists, and the calendar's occurrences
          onChanged={() => {
            void qc.invalidateQueries({ queryKey: ['subjects'] });
            void qc.invalidateQueries({ queryKey: ['visits', 'occurrences'] });
          }}
          onOpenRepeat={(n) => setQuery({ repeatNo: n })}
        />
      ) : null}
    </div>
  );
}

function SubjectHeader({ subject: s, visits }: { subject: SubjectRow; visits: ScheduleVisit[] | undefined }) {
  const { t } = useTranslation('subjects');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const access = useAccess();
  const canUpdate = Boolean(access && can(access.pms, { anyOf: ['patient:page:update'] }));
  const canRisk = Boolean(access && can(access.pms, { anyOf: ['research:page:update'] }));
  const [dialog, setDialog] = useState<'edit' | 'status' | 'risk' | null>(null);
  const ids = IDENTIFIER_FIELDS.filter((f) => s[f]);
  const saved = (text: string) => {
    setDialog(null);
    void message.success(text);
    void qc.invalidateQueries({ queryKey: ['subjects'] });
  };
  return (
    <Card size="small" data-testid="subject-header">
      {dialog === 'edit' ? (
        <SubjectDialog
          subject={s}
          onClose={() => setDialog(null)}
          onSaved={(x) => saved(t('edit.done', { no: x.ptsNo }))}
        />
      ) : null}
      {dialog === 'status' ? (
        <StatusDialog
          subject={s}
          onClose={() => setDialog(null)}
          onSaved={(x) => saved(t('statusChange.done', { no: x.ptsNo, status: t(`status.${x.status}`) }))}
        />
      ) : null}
      {dialog === 'risk' ? <SubjectRiskDialog subject={s} onClose={() => setDialog(null)} /> : null}
      <Descriptions
        extra={
          <Space>
              {/* issue 14: the casebook PDF (shown with crf:casebook:export) */}
              <CasebookPrintButton ptsId={s.ptsId} ptsNo={s.ptsNo} visits={visits} />
              {canRisk ? (
                <Button size="small" icon={<SafetyOutlined />} onClick={() => setDialog('risk')} data-testid="detail-risk">
                  {t('riskLevel')}
                </Button>
              ) : null}
              {!canUpdate || s.identifiersMasked ? null : (
                <Button
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => setDialog('edit')}
                  data-testid="detail-edit"
                >
                  {t('edit.button')}
                </Button>
              )}
              {canUpdate && allowedTargets(s.status).length ? (
                <Button
                  size="small"
                  icon={<SwapOutlined />}
                  onClick={() => setDialog('status')}
                  data-testid="detail-status"
                >
                  {t('statusChange.button')}
                </Button>
              ) : null}
          </Space>
        }
        size="small"
        column={{ xs: 1, sm: 2, lg: 4 }}
        title={
          <Space>
            <span data-testid="subject-no">{s.ptsNo}</span>
            {s.initials ? <Typography.Text type="secondary">{s.initials}</Typography.Text> : null}
            <StatusTag status={s.status} />
            <SubjectRiskTag subject={s} />
          </Space>
        }
        items={[
          {
            key: 'site',
            label: t('col.site'),
            children: (
              <span>
                <Tag>{s.orgNo ?? s.siteId}</Tag>
                {s.siteName}
              </span>
            ),
          },
          { key: 'first', label: t('col.firstVisitDate'), children: s.firstVisitDate },
          {
            key: 'visit',
            label: t('col.currentVisit'),
            children: <span data-testid="subject-current-visit">{currentVisitLabel(s, t('allVisitsDone'))}</span>,
          },
          {
            key: 'progress',
            label: t('col.formProgress'),
            children:
              s.formsTotal > 0 ? (
                <span data-testid="subject-form-progress" style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
                  <Progress size="small" percent={formPercent(s.formsDone, s.formsTotal)} showInfo={false} style={{ width: 96, margin: 0 }} />
                  <Typography.Text type="secondary">
                    {s.formsDone}/{s.formsTotal}
                  </Typography.Text>
                </span>
              ) : (
                '—'
              ),
          },
          {
            key: 'ids',
            label: t('col.identifiers'),
            span: 2,
            children: ids.length ? (
              <Space wrap size={[12, 4]} data-testid="subject-identifiers">
                {ids.map((f) => (
                  <span key={f}>
                    <Typography.Text type="secondary">{t(`idShort.${f}`)}</Typography.Text>{' '}
                    <code>{s[f]}</code>
                  </span>
                ))}
                {s.identifiersMasked ? <Tag>{t('masked')}</Tag> : null}
              </Space>
            ) : (
              '—'
            ),
          },
          ...(s.statusReason ? [{ key: 'reason', label: t('col.reason'), children: s.statusReason }] : []),
        ]}
      />
    </Card>
  );
}

function VisitsTab({
  subject,
  visits,
  loading,
  error,
  open,
}: {
  subject: SubjectRow;
  visits: ScheduleVisit[] | undefined;
  loading: boolean;
  error: string | undefined;
  open: (v: ScheduleVisit, formId: number, repeatNo: number) => void;
}) {
  const { t } = useTranslation('subjects');
  const access = useAccess();
  const allowed = (p: Permission) => Boolean(access && can(access.pms, { anyOf: [p] }));
  const [adding, setAdding] = useState(false);
  const [certifying, setCertifying] = useState<ScheduleVisit | null>(null);
  const language = useSession((s) => s.language);
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  // the schedule names forms in the primary language; the version's forms carry the English names
  // open and replied queries per visit, for whoever may see them (the cards' markers link to the query list)
  const tallies = useQuery(visitQueriesQuery({ env, projectId }, subject.ptsId, allowed('doubt:querying:query') || allowed('doubt:replied:query')));
  const tallyOf = (v: ScheduleVisit) => tallies.data?.find((x) => x.visitId === v.visitId && x.unscheduledId === v.unscheduledId);
  const forms = useQuery({
    queryKey: ['design', 'forms', env, projectId, subject.designVersionId],
    queryFn: () =>
      api.get<FormRow[]>('/crf/form/list', { versionId: subject.designVersionId ?? 0 }, { silent: true }),
    enabled: Boolean(subject.designVersionId) && language === 'en_US',
    staleTime: 300_000,
  });
  const formName = (f: { formId: number; name: string }) =>
    (language === 'en_US' ? forms.data?.find((x) => x.id === f.formId)?.nameEn : null) ?? f.name;
  if (loading) return <Skeleton active />;
  if (error) return <Result status="warning" title={t('detail.scheduleFailed')} subTitle={error} />;
  return (
    <div>
      <Space style={{ marginBottom: 12 }} wrap>
        {allowed('crf:result:save') ? (
          <Button icon={<PlusOutlined />} onClick={() => setAdding(true)} data-testid="add-unscheduled">
            {t('unscheduled.button')}
          </Button>
        ) : null}
        <Link to={`/project/visitTimeline?ptsId=${subject.ptsId}`}>
          <Button icon={<CalendarOutlined />}>{t('detail.timeline')}</Button>
        </Link>
      </Space>
      {!visits?.length ? (
        <Empty description={t('detail.noVisits')} />
      ) : (
        <div className="visit-grid" data-testid="visit-list">
          {visits.map((v) => (
            <Card
              key={`${v.visitId}-${v.unscheduledId}`}
              size="small"
              className={`visit-card visit-${v.state}`}
              data-testid={`visit-${v.code}${v.unscheduledId ? `-${v.unscheduledId}` : ''}`}
              title={
                <Space size={6} wrap>
                  <Tag color="geekblue">{v.code}</Tag>
                  <span>{visitLabel(v, language)}</span>
                  <VisitStateTag state={v.state} />
                  {v.forms.some((f) => f.pendingReview) ? (
                    <PendingReviewTag testId={`visit-pending-${v.code}${v.unscheduledId ? `-${v.unscheduledId}` : ''}`} />
                  ) : null}
                  <QueryCountTags
                    hideZero
                    open={tallyOf(v)?.open ?? 0}
                    replied={tallyOf(v)?.replied ?? 0}
                    target={{ ptsId: subject.ptsId, ptsNo: subject.ptsNo, visitId: v.visitId, unscheduledId: v.unscheduledId, visit: `${v.code} ${visitLabel(v, language)}` }}
                    testId={`visit-queries-${v.code}${v.unscheduledId ? `-${v.unscheduledId}` : ''}`}
                  />
                </Space>
              }
              extra={
                <Space size={4}>
                  <VerifyVisitButton
                    instanceIds={v.forms.flatMap((f) => f.instances.filter((i) => i.status >= CRF_STATUS.completed).map((i) => i.id))}
                    testId={`sdv-visit-${v.code}${v.unscheduledId ? `-${v.unscheduledId}` : ''}`}
                  />
                  {allowed('crf:result:check') && completedOf(v).length > 0 ? (
                    <Button
                      size="small"
                      icon={<SafetyCertificateOutlined />}
                      onClick={() => setCertifying(v)}
                      data-testid={`certify-visit-${v.code}${v.unscheduledId ? `-${v.unscheduledId}` : ''}`}
                    >
                      {t('certifyVisit.button')}
                    </Button>
                  ) : null}
                </Space>
              }
            >
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {v.unscheduled
                  ? t('visit.unscheduledOn', { date: v.planned ?? '—' })
                  : t('visit.window', {
                      planned: v.planned ?? '—',
                      start: v.start ?? '—',
                      end: v.end ?? '—',
                    })}
              </Typography.Text>
              <div className="visit-forms">
                {v.forms.length === 0 ? (
                  <Typography.Text type="secondary">{t('visit.noForms')}</Typography.Text>
                ) : null}
                {v.forms.map((f) => (
                  <div key={f.formId} className="visit-form-row">
                    {f.cycle && f.instances.length > 0 ? (
                      <Space size={4} wrap>
                        <FileTextOutlined />
                        <span>{formName(f)}</span>
                        {f.instances.map((i) => (
                          <Button
                            key={i.id}
                            size="small"
                            onClick={() => open(v, f.formId, i.repeatNo)}
                            data-testid={`form-${v.code}-${f.code}-${i.repeatNo}`}
                          >
                            #{i.repeatNo}{' '}
                            <CrfStatusTag
                              status={i.status}
                              testId={`form-status-${v.code}-${f.code}-${i.repeatNo}`}
                            />
                            {i.pendingReview ? <PendingReviewTag testId={`form-pending-${v.code}-${f.code}-${i.repeatNo}`} /> : null}
                          </Button>
                        ))}
                        {allowed('crf:result:save') ? (
                          <Button
                            size="small"
                            type="dashed"
                            icon={<PlusOutlined />}
                            onClick={() =>
                              open(v, f.formId, Math.max(...f.instances.map((i) => i.repeatNo)) + 1)
                            }
                            data-testid={`form-${v.code}-${f.code}-add`}
                          >
                            {t('visit.addRepeat')}
                          </Button>
                        ) : null}
                      </Space>
                    ) : (
                      <Button
                        type="link"
                        size="small"
                        icon={<FileTextOutlined />}
                        onClick={() => open(v, f.formId, 1)}
                        data-testid={`form-${v.code}-${f.code}`}
                      >
                        {formName(f)}
                        {f.cycle ? (
                          <Typography.Text type="secondary"> ({t('visit.cycle')})</Typography.Text>
                        ) : null}
                      </Button>
                    )}
                    {f.cycle && f.instances.length > 0 ? null : (
                      <CrfStatusTag status={f.status} testId={`form-status-${v.code}-${f.code}`} />
                    )}
                    {!f.cycle && f.pendingReview ? <PendingReviewTag testId={`form-pending-${v.code}-${f.code}`} /> : null}
                  </div>
                ))}
              </div>
            </Card>
          ))}
        </div>
      )}
      {adding ? <UnscheduledDialog subject={subject} onClose={() => setAdding(false)} /> : null}
      {certifying ? (
        <CertifyVisitDialog visit={certifying} formName={formName} onClose={() => setCertifying(null)} />
      ) : null}
    </div>
  );
}

/** The completed (not yet certified) forms of a visit, each repeat at the version shown. */
function completedOf(v: ScheduleVisit) {
  return v.forms.flatMap((f) =>
    f.instances.filter((i) => i.status === CRF_STATUS.completed).map((i) => ({ form: f, instance: i })),
  );
}

/** Certifies every completed form of one visit at once, at the versions shown (issue 5 §5, checkBatch). */
function CertifyVisitDialog({
  visit,
  formName,
  onClose,
}: {
  visit: ScheduleVisit;
  formName: (f: { formId: number; name: string }) => string;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation('subjects');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const list = completedOf(visit);
  const pending = visit.forms.filter((f) => f.status < CRF_STATUS.completed);
  // certifying is an electronic signature: the signature dialog asks for the password and shows the meaning
  const sign = async (password: string, meaning: SignatureMeaning) => {
    await ecrfApi.certifyBatch(
      list.map((x) => ({ instanceId: x.instance.id, version: x.instance.version })),
      password,
      meaning,
    );
    void message.success(
      t('certifyVisit.done', { count: list.length, visit: visitLabel(visit, i18n.language) }),
    );
    await qc.invalidateQueries({ queryKey: ['subjects'] });
    onClose();
  };
  return (
    <SignatureDialog
      title={t('certifyVisit.title', { visit: `${visit.code} ${visitLabel(visit, i18n.language)}` })}
      okText={t('certifyVisit.ok', { count: list.length })}
      onSign={sign}
      onClose={onClose}
      okTestId="certify-visit-ok"
    >
      <Typography.Paragraph type="secondary">{t('certifyVisit.description')}</Typography.Paragraph>
      <ul data-testid="certify-visit-forms">
        {list.map((x) => (
          <li key={x.instance.id}>
            {formName(x.form)}
            {x.form.cycle ? ` #${x.instance.repeatNo}` : ''}
          </li>
        ))}
      </ul>
      {pending.length ? (
        <Alert
          type="info"
          showIcon
          title={t('certifyVisit.pending', { forms: pending.map((f) => formName(f)).join(', ') })}
        />
      ) : null}
    </SignatureDialog>
  );
}

function UnscheduledDialog({ subject, onClose }: { subject: SubjectRow; onClose: () => void }) {
  const { t, i18n } = useTranslation('subjects');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const plan = useQuery({
    queryKey: ['design', 'enabledVisits', env, projectId],
    queryFn: () => api.post<{ visits: VisitRow[] }>('/pro/visit/listByEnabledVersion'),
  });
  const options = (plan.data?.visits ?? [])
    .filter((v) => v.unscheduled)
    .map((v) => ({ value: v.id, label: `${v.code} ${visitLabel(v, i18n.language)}` }));
  const [form] = Form.useForm<{ visitId?: number; visitDate?: Dayjs; label?: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    setError(null);
    try {
      await subjectsApi.addUnscheduled({
        ptsId: subject.ptsId,
        visitId: v.visitId!,
        visitDate: v.visitDate!.format('YYYY-MM-DD'),
        label: v.label?.trim() || undefined,
      });
      void message.success(t('unscheduled.done'));
      // its forms count in the subject's form progress too
      await qc.invalidateQueries({ queryKey: ['subjects'] });
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('unscheduled.title')}
      okText={t('save')}
      cancelText={t('cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{ visitId: options.length === 1 ? options[0]!.value : undefined }}
      >
        <Form.Item
          name="visitId"
          label={t('unscheduled.visit')}
          rules={[{ required: true, message: t('unscheduled.visitRequired') }]}
        >
          <Select
            options={options}
            loading={plan.isLoading}
            notFoundContent={t('unscheduled.none')}
            data-testid="unscheduled-visit"
          />
        </Form.Item>
        <Form.Item
          name="visitDate"
          label={t('unscheduled.date')}
          rules={[{ required: true, message: t('unscheduled.dateRequired') }]}
        >
          <DatePicker style={{ width: '100%' }} data-testid="unscheduled-date" />
        </Form.Item>
        <Form.Item name="label" label={t('unscheduled.label')}>
          <Input maxLength={100} data-testid="unscheduled-label" />
        </Form.Item>
      </Form>
      {error ? <Typography.Text type="danger">{error}</Typography.Text> : null}
    </Modal>
  );
}
