import { useState } from 'react';
import { Alert, DatePicker, Form, Input, Modal, Radio, Select, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs, { type Dayjs } from 'dayjs';
import { isValidIdNumber, type SubjectRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { mySitesQuery, subjectsApi, type SubjectInput } from '../api/subjects-api';
import { allowedTargets, IDENTIFIER_FIELDS, reasonRequired } from '../subject-logic';
import { StatusTag } from './status-tag';
import { validFields } from '../../../lib/validate-form';
import { LimitedInput } from '../../../components/limited-input';

interface SubjectFormValues {
  siteId?: number;
  ptsNo?: string;
  status: number;
  firstVisitDate?: Dayjs;
  initials?: string;
  medicalRecordId?: string;
  inpatientId?: string;
  outpatientId?: string;
  idCard?: string;
}

const FIELDS = new Set(['siteId', 'ptsNo', 'status', 'firstVisitDate', 'initials', ...IDENTIFIER_FIELDS]);

/** Server field errors on the form; the rest as a general message. */
function applyServerError(
  e: unknown,
  setFields: (f: { name: string; errors: string[] }[]) => void,
): string | null {
  if (!(e instanceof ApiError)) return String(e);
  const fields = e.detail
    .filter((d) => FIELDS.has(d.field))
    .map((d) => ({ name: d.field, errors: [d.message] }));
  setFields(fields);
  return fields.length ? null : e.message;
}

/** Add subject (spec §5: first-visit time required; ID card checksum) or edit one. */
export function SubjectDialog({
  subject,
  onClose,
  onSaved,
}: {
  subject?: SubjectRow;
  onClose: () => void;
  onSaved: (s: SubjectRow) => void;
}) {
  const { t } = useTranslation('subjects');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(mySitesQuery({ env, projectId }));
  const [form] = Form.useForm<SubjectFormValues>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const editing = Boolean(subject);
  const siteOptions = (sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }));

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    setGeneral(null);
    const body: SubjectInput = {
      siteId: v.siteId!,
      firstVisitDate: v.firstVisitDate!.format('YYYY-MM-DD'),
      initials: v.initials,
      medicalRecordId: v.medicalRecordId,
      inpatientId: v.inpatientId,
      outpatientId: v.outpatientId,
      idCard: v.idCard,
    };
    try {
      const saved = subject
        ? await subjectsApi.update({ ...body, ptsId: subject.ptsId, version: subject.version })
        : await subjectsApi.add({ ...body, ptsNo: v.ptsNo, status: v.status });
      onSaved(saved);
    } catch (e) {
      setGeneral(applyServerError(e, (f) => form.setFields(f as Parameters<typeof form.setFields>[0])));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={editing ? t('edit.title', { no: subject!.ptsNo }) : t('add.title')}
      okText={t('save')}
      cancelText={t('cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
      destroyOnHidden
      width={620}
      okButtonProps={{ 'data-testid': 'subject-save' }}
    >
      {general ? <Alert type="error" showIcon title={general} style={{ marginBottom: 12 }} /> : null}
      <Form<SubjectFormValues>
        form={form}
        layout="vertical"
        data-testid="subject-form"
        initialValues={
          subject
            ? {
                siteId: subject.siteId,
                status: subject.status,
                firstVisitDate: dayjs(subject.firstVisitDate),
                initials: subject.initials ?? undefined,
                medicalRecordId: subject.medicalRecordId ?? undefined,
                inpatientId: subject.inpatientId ?? undefined,
                outpatientId: subject.outpatientId ?? undefined,
                idCard: subject.idCard ?? undefined,
              }
            : { status: 1, siteId: siteOptions.length === 1 ? siteOptions[0]!.value : undefined }
        }
      >
        <div style={{ display: 'grid', gridTemplateColumns: '1fr 1fr', columnGap: 16 }}>
          <Form.Item
            name="siteId"
            label={t('field.site')}
            rules={[{ required: true, message: t('rule.site') }]}
          >
            <Select
              options={siteOptions}
              loading={sites.isLoading}
              placeholder={t('field.sitePlaceholder')}
              data-testid="subject-site"
              notFoundContent={t('noSites')}
            />
          </Form.Item>
          <Form.Item
            name="firstVisitDate"
            label={t('field.firstVisitDate')}
            rules={[{ required: true, message: t('rule.firstVisitDate') }]}
          >
            <DatePicker style={{ width: '100%' }} data-testid="subject-first-visit" />
          </Form.Item>
          {editing ? null : (
            <Form.Item
              name="ptsNo"
              label={t('field.ptsNo')}
              extra={t('field.ptsNoHint')}
              rules={[{ pattern: /^[A-Za-z0-9-]{1,30}$/, message: t('rule.identifier') }]}
            >
              <LimitedInput max={30} data-testid="subject-no" />
            </Form.Item>
          )}
          {editing ? null : (
            <Form.Item name="status" label={t('field.initialStatus')}>
              <Radio.Group
                options={[7, 1].map((s) => ({ value: s, label: t(`status.${s}`) }))}
                data-testid="subject-initial-status"
              />
            </Form.Item>
          )}
          <Form.Item
            name="initials"
            label={t('field.initials')}
            rules={[{ max: 10, message: t('rule.max', { n: 10 }) }]}
          >
            <LimitedInput max={10} data-testid="subject-initials" />
          </Form.Item>
          {IDENTIFIER_FIELDS.filter((f) => f !== 'idCard').map((f) => (
            <Form.Item
              key={f}
              name={f}
              label={t(`id.${f}`)}
              rules={[{ pattern: /^[A-Za-z0-9-]{1,40}$/, message: t('rule.identifier') }]}
            >
              <LimitedInput max={40} data-testid={`subject-${f}`} />
            </Form.Item>
          ))}
          <Form.Item
            name="idCard"
            label={t('id.idCard')}
            rules={[
              {
                validator: (_r, v: string | undefined) =>
                  !v || isValidIdNumber(v.trim())
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('rule.idCard'))),
              },
            ]}
          >
            <LimitedInput max={18} data-testid="subject-idCard" />
          </Form.Item>
        </div>
      </Form>
    </Modal>
  );
}

/** Change status: only the allowed targets; a reason when the target needs one. */
export function StatusDialog({
  subject,
  onClose,
  onSaved,
}: {
  subject: SubjectRow;
  onClose: () => void;
  onSaved: (s: SubjectRow) => void;
}) {
  const { t } = useTranslation('subjects');
  const [status, setStatus] = useState<number | undefined>();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const targets = allowedTargets(subject.status);
  const needs = status !== undefined && reasonRequired(status);

  const submit = async () => {
    if (status === undefined) {
      setError(t('rule.status'));
      return;
    }
    if (needs && !reason.trim()) {
      setError(t('rule.reason'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSaved(
        await subjectsApi.setStatus({
          ptsId: subject.ptsId,
          version: subject.version,
          status,
          reason: reason.trim() || undefined,
        }),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={t('statusChange.title', { no: subject.ptsNo })}
      okText={t('save')}
      cancelText={t('cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
      okButtonProps={{ disabled: targets.length === 0, 'data-testid': 'status-save' }}
    >
      <Typography.Paragraph>
        {t('statusChange.current')} <StatusTag status={subject.status} />
      </Typography.Paragraph>
      {targets.length === 0 ? (
        <Alert type="info" showIcon title={t('statusChange.final')} />
      ) : (
        <Radio.Group
          value={status}
          onChange={(e) => setStatus(e.target.value as number)}
          data-testid="status-targets"
          style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
          options={targets.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        />
      )}
      {needs ? (
        <Form layout="vertical" style={{ marginTop: 12 }}>
          <Form.Item label={t('field.reason')} required>
            <Input.TextArea
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              data-testid="status-reason"
            />
          </Form.Item>
        </Form>
      ) : null}
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 12 }} /> : null}
    </Modal>
  );
}

/** A reason, then an action (delete to the recycle bin, restore, uncertify, delete a repeat form…). */
export function ReasonDialog({
  title,
  description,
  okText,
  danger,
  onClose,
  onSubmit,
  testId = 'reason',
}: {
  title: string;
  description?: string;
  okText: string;
  danger?: boolean;
  onClose: () => void;
  onSubmit: (reason: string) => Promise<void>;
  testId?: string;
}) {
  const { t } = useTranslation('subjects');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    if (!reason.trim()) {
      setError(t('rule.reason'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(reason.trim());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={title}
      okText={okText}
      cancelText={t('cancel')}
      okButtonProps={{ danger, 'data-testid': `${testId}-ok` }}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
    >
      {description ? <Typography.Paragraph>{description}</Typography.Paragraph> : null}
      <Form layout="vertical">
        <Form.Item
          label={t('field.reason')}
          required
          validateStatus={error ? 'error' : undefined}
          help={error}
        >
          <Input.TextArea
            rows={3}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            data-testid={`${testId}-input`}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
