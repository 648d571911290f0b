import { useMemo, useState } from 'react';
import { Alert, Form, Input, Modal, Select, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  CRF_STATUS,
  MICRO_DC_DEFAULTS,
  SHARE_LIMITS,
  visitLabel,
  type ScheduleVisit,
  type ShareCreated,
  type SubjectPickerRow,
} from '@esource/shared';
import { api, ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { scheduleQuery } from '../../subjects';
import { ddcApi, ddcKey, dcConfigQuery } from '../api/ddc-api';
import { ShareLinkResult } from './share-link-result';
import { hourChoices, validityText } from '../ddc-logic';

/** A form of a subject's visit, fixed when the dialog is opened from the form itself. */
export interface ShareTarget {
  ptsId: number;
  visitId: number;
  formId: number;
  unscheduledId: number;
  repeatNo: number;
  /** subject, visit and form, as the dialog names them */
  label: string;
}

/**
 * Create a link to one form of one subject's visit (issue 15 item 6): from the form itself (`target`) or from /DDC/share
 * with a subject, visit and form picker. The validity is chosen within the project's data-collection settings; the
 * created link is shown with copy and a QR code.
 */
export function ShareDialog({ target, onClose }: { target?: ShareTarget; onClose: () => void }) {
  const { t } = useTranslation('ddc');
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const dc = useQuery({ ...dcConfigQuery(scope), retry: false });
  const settings = dc.data?.settings ?? MICRO_DC_DEFAULTS;
  const [form] = Form.useForm<{
    ptsId?: number;
    slot?: string;
    formId?: number;
    hours: number;
    note?: string;
  }>();
  const [keyword, setKeyword] = useState('');
  const ptsId = Form.useWatch('ptsId', form) ?? target?.ptsId ?? null;
  const slot = Form.useWatch('slot', form);
  const subjects = useQuery({
    queryKey: ['ddc', 'subjects', env, projectId, keyword],
    queryFn: () =>
      api.post<SubjectPickerRow[]>('/project/manage/listPa', { keyword: keyword || undefined, limit: 50 }),
    enabled: !target && projectId !== null,
  });
  const schedule = useQuery({ ...scheduleQuery(scope, target ? null : ptsId) });
  const visits = schedule.data ?? [];
  const visit: ScheduleVisit | undefined = visits.find((v) => `${v.visitId}:${v.unscheduledId}` === slot);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<ShareCreated | null>(null);

  const choices = useMemo(
    () => hourChoices(settings.defaultHours, settings.maxHours),
    [settings.defaultHours, settings.maxHours],
  );
  const listed = (code: string) => settings.forms === 'all' || settings.formCodes.includes(code);

  const submit = async () => {
    const v = await form.validateFields();
    let key: Omit<ShareTarget, 'label'>;
    if (target) key = target;
    else {
      const f = visit?.forms.find((x) => x.formId === v.formId);
      if (!visit || !f || !v.ptsId) return;
      const repeatNo = f.cycle ? Math.max(0, ...f.instances.map((i) => i.repeatNo)) + 1 : 1;
      key = {
        ptsId: v.ptsId,
        visitId: visit.visitId,
        formId: f.formId,
        unscheduledId: visit.unscheduledId,
        repeatNo,
      };
    }
    setBusy(true);
    setError(null);
    try {
      const r = await ddcApi.create({ ...key, hours: v.hours, ...(v.note ? { note: v.note } : {}) });
      setCreated(r);
      void qc.invalidateQueries({ queryKey: ddcKey });
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={created ? t('result.title') : t('create.title')}
      onCancel={onClose}
      okText={created ? t('create.done') : t('create.ok')}
      cancelText={t('cancel')}
      onOk={created ? onClose : () => void submit()}
      cancelButtonProps={created ? { style: { display: 'none' } } : {}}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': created ? 'share-done' : 'share-create' }}
      destroyOnHidden
      width={520}
    >
      {created ? (
        <ShareLinkResult code={created.code} expiresAt={created.expiresAt} />
      ) : (
        <Form
          form={form}
          layout="vertical"
          initialValues={{ hours: settings.defaultHours }}
          data-testid="share-form"
          key={settings.defaultHours}
        >
          {target ? (
            <Typography.Paragraph data-testid="share-target">
              <Typography.Text type="secondary">{t('create.what')}</Typography.Text> {target.label}
            </Typography.Paragraph>
          ) : (
            <>
              <Form.Item
                name="ptsId"
                label={t('fields.subject')}
                rules={[{ required: true, message: t('create.subjectRequired') }]}
              >
                <Select
                  showSearch={{ filterOption: false, onSearch: (s) => setKeyword(s.trim()) }}
                  placeholder={t('create.subjectPlaceholder')}
                  loading={subjects.isFetching}
                  onChange={() => form.setFieldsValue({ slot: undefined, formId: undefined })}
                  options={(subjects.data ?? []).map((s) => ({
                    value: s.ptsId,
                    label: `${s.ptsNo}${s.initials ? ` (${s.initials})` : ''} · ${s.siteName}`,
                  }))}
                  notFoundContent={t('create.noSubjects')}
                  data-testid="share-subject"
                />
              </Form.Item>
              <Form.Item
                name="slot"
                label={t('fields.visit')}
                rules={[{ required: true, message: t('create.visitRequired') }]}
              >
                <Select
                  disabled={!ptsId}
                  loading={schedule.isFetching}
                  onChange={() => form.setFieldsValue({ formId: undefined })}
                  options={visits.map((v) => ({
                    value: `${v.visitId}:${v.unscheduledId}`,
                    label: `${v.code} ${visitLabel(v, language)}`,
                  }))}
                  data-testid="share-visit"
                />
              </Form.Item>
              <Form.Item
                name="formId"
                label={t('fields.form')}
                rules={[{ required: true, message: t('create.formRequired') }]}
              >
                <Select
                  disabled={!visit}
                  options={(visit?.forms ?? []).map((f) => {
                    const done = !f.cycle && f.status >= CRF_STATUS.completed;
                    const name = (language === 'en_US' ? f.nameEn : null) ?? f.name;
                    return {
                      value: f.formId,
                      disabled: done || !listed(f.code),
                      label: `${name}${done ? ` · ${t('create.formDone')}` : !listed(f.code) ? ` · ${t('create.formNotListed')}` : ''}`,
                    };
                  })}
                  data-testid="share-form-select"
                />
              </Form.Item>
            </>
          )}
          <Form.Item
            name="hours"
            label={t('fields.validity')}
            extra={t('create.validityHint', { max: validityText(t, settings.maxHours) })}
          >
            <Select
              options={choices.map((h) => ({ value: h, label: validityText(t, h) }))}
              data-testid="share-hours"
            />
          </Form.Item>
          <Form.Item name="note" label={t('fields.note')}>
            <Input
              maxLength={SHARE_LIMITS.noteMax}
              placeholder={t('create.notePlaceholder')}
              data-testid="share-note"
            />
          </Form.Item>
          {!settings.enabled ? <Alert type="warning" showIcon title={t('create.disabled')} /> : null}
          {error ? <Alert type="error" showIcon title={error} data-testid="share-error" /> : null}
        </Form>
      )}
    </Modal>
  );
}
