import { useState } from 'react';
import { Alert, Form, Input, Modal, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { LIMITS, type ProjectDetail } from '@esource/shared';
import { projectManageApi } from '../api/project-manage-api';
import { serverProblems } from '../project-form';
import { LimitedInput, LimitedTextArea } from '../../../components/limited-input';

interface Base {
  project: ProjectDetail;
  onClose: () => void;
}

function useSubmit<T>(fields: readonly string[], run: (v: T) => Promise<void>) {
  const [form] = Form.useForm<T>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<{ code: string | null; text: string } | null>(null);
  const submit = async (v: T) => {
    setBusy(true);
    setGeneral(null);
    try {
      await run(v);
    } catch (e) {
      const p = serverProblems(e, fields);
      form.setFields(p.fields as Parameters<typeof form.setFields>[0]);
      if (p.general) setGeneral({ code: p.errorCode, text: p.general });
    } finally {
      setBusy(false);
    }
  };
  return { form, busy, general, submit };
}

/** Copy the open project's design and configuration into a new project (POST /pro/info/copyProInfo). */
export function CopyProjectDialog({
  project,
  onClose,
  onDone,
}: Base & { onDone: (p: ProjectDetail) => void }) {
  const { t } = useTranslation('projectManage');
  const { form, busy, general, submit } = useSubmit<{ no: string; name: string }>(
    ['no', 'name'],
    async (v) => {
      onDone(await projectManageApi.copy({ id: project.id, no: v.no, name: v.name }));
    },
  );
  return (
    <Modal
      open
      title={t('copy.title', { no: project.no })}
      okText={t('copy.ok')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="copy-dialog">
        <Typography.Paragraph type="secondary">{t('copy.explain')}</Typography.Paragraph>
        {general ? <Alert type="error" showIcon title={general.text} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          onFinish={(v) => void submit(v)}
          initialValues={{ no: '', name: project.name }}
        >
          <Form.Item
            name="no"
            label={t('field.no')}
            rules={[
              { required: true, whitespace: true, message: t('rule.noRequired') },
              { max: LIMITS.projectNoMax, message: t('rule.noMax', { max: LIMITS.projectNoMax }) },
            ]}
          >
            <LimitedInput max={LIMITS.projectNoMax} data-testid="copy-no" />
          </Form.Item>
          <Form.Item
            name="name"
            label={t('field.name')}
            rules={[
              { required: true, whitespace: true, message: t('rule.nameRequired') },
              { max: LIMITS.projectNameMax, message: t('rule.nameMax', { max: LIMITS.projectNameMax }) },
            ]}
          >
            <LimitedInput max={LIMITS.projectNameMax} data-testid="copy-name" />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}

export const PROJECT_STATUSES = [0, 1, 2, 3] as const;

/** Change the status with a required reason (POST /pro/info/updateStatus); status 3 closes the project. */
export function StatusDialog({
  project,
  onClose,
  onDone,
  closing,
}: Base & { onDone: (p: ProjectDetail) => void; closing: boolean }) {
  const { t } = useTranslation('projectManage');
  const { form, busy, general, submit } = useSubmit<{ status: number; reason: string }>(
    ['status', 'reason'],
    async (v) => {
      onDone(await projectManageApi.setStatus({ id: project.id, status: v.status, reason: v.reason }));
    },
  );
  const status = Form.useWatch('status', form);
  return (
    <Modal
      open
      title={closing ? t('status.closeTitle', { no: project.no }) : t('status.title', { no: project.no })}
      okText={closing ? t('status.closeOk') : t('save')}
      okButtonProps={{ danger: status === 3 }}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="status-dialog">
        {status === 3 ? (
          <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={t('status.closeWarning')} />
        ) : null}
        {general ? <Alert type="error" showIcon title={general.text} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          onFinish={(v) => void submit(v)}
          initialValues={{ status: closing ? 3 : undefined, reason: '' }}
        >
          <Form.Item
            name="status"
            label={t('field.status')}
            rules={[{ required: true, message: t('rule.statusRequired') }]}
          >
            <Select
              data-testid="status-select"
              disabled={closing}
              options={PROJECT_STATUSES.filter((s) => s !== project.status).map((s) => ({
                value: s,
                label: t(`status.${s}`),
              }))}
            />
          </Form.Item>
          <Form.Item
            name="reason"
            label={t('field.reason')}
            rules={[
              { required: true, whitespace: true, message: t('rule.reasonRequired') },
              { max: 500, message: t('rule.max', { max: 500 }) },
            ]}
          >
            <LimitedTextArea max={500} rows={3} data-testid="status-reason" />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}

/** Delete the open project (POST /project/info/delete); refused while it holds subject data. */
export function DeleteProjectDialog({ project, onClose, onDone }: Base & { onDone: () => void }) {
  const { t } = useTranslation('projectManage');
  const { form, busy, general, submit } = useSubmit<{ confirmNo: string; reason: string }>(
    ['reason'],
    async (v) => {
      await projectManageApi.remove({ id: project.id, reason: v.reason || undefined });
      onDone();
    },
  );
  return (
    <Modal
      open
      title={t('delete.title', { no: project.no })}
      okText={t('delete.ok')}
      okButtonProps={{ danger: true }}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="delete-dialog">
        <Typography.Paragraph>{t('delete.explain')}</Typography.Paragraph>
        {general ? (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 16 }}
            title={general.text}
            description={general.code === 'PROJECT_HAS_SUBJECT_DATA' ? t('delete.hasSubjects') : undefined}
            data-testid="delete-error"
          />
        ) : null}
        <Form
          form={form}
          layout="vertical"
          onFinish={(v) => void submit(v)}
          initialValues={{ confirmNo: '', reason: '' }}
        >
          <Form.Item
            name="confirmNo"
            label={t('delete.typeNo', { no: project.no })}
            rules={[
              {
                validator: (_, v: string) =>
                  (v ?? '').trim() === project.no
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('delete.noMismatch'))),
              },
            ]}
          >
            <Input data-testid="delete-confirm-no" autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="reason"
            label={t('field.reasonOptional')}
            rules={[{ max: 500, message: t('rule.max', { max: 500 }) }]}
          >
            <LimitedTextArea max={500} rows={2} />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}
