import { useState } from 'react';
import { Alert, Checkbox, Form, InputNumber, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { VersionRow } from '@esource/shared';
import { designApi, type StageRow } from '../api/design-api';
import { LimitedInput } from '../../../components/limited-input';

/** New version (DEV): a copy of the newest version, which stays as it is. */
export function NewVersionDialog({
  newest,
  onClose,
  onDone,
}: {
  newest: VersionRow | undefined;
  onClose: () => void;
  onDone: (v: VersionRow) => void;
}) {
  const { t } = useTranslation('design');
  const [form] = Form.useForm<{ name: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (v: { name: string }) => {
    setBusy(true);
    setError(null);
    try {
      onDone(await designApi.createVersion(v.name.trim(), newest?.id));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const nextNo = (newest?.versionNo ?? 0) + 1;
  return (
    <Modal
      open
      title={t('version.newTitle')}
      okText={t('version.create')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="new-version-dialog">
        <Typography.Paragraph type="secondary">
          {newest ? t('version.copyOf', { name: newest.name }) : t('version.empty')}
        </Typography.Paragraph>
        {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          initialValues={{ name: `v${nextNo}.0` }}
          onFinish={(v) => void submit(v)}
        >
          <Form.Item
            name="name"
            label={t('version.name')}
            rules={[
              { required: true, whitespace: true, message: t('rule.nameRequired') },
              { max: 50, message: t('rule.max', { max: 50 }) },
            ]}
          >
            <LimitedInput max={50} data-testid="version-name" />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}

type PublishEnv = 'UAT' | 'PRO';

/** Publish a version to UAT and/or PRO (DEV); from then on it is read-only. */
export function PublishDialog({
  version,
  onClose,
  onDone,
}: {
  version: VersionRow;
  onClose: () => void;
  onDone: (v: VersionRow) => void;
}) {
  const { t } = useTranslation('design');
  const open = (['UAT', 'PRO'] as const).filter((e) => !version.publishedEnvs.includes(e));
  const [envs, setEnvs] = useState<PublishEnv[]>(open.slice(0, 1));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      onDone(await designApi.publish(version.id, envs));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('version.publishTitle', { name: version.name })}
      okText={t('version.publish')}
      okButtonProps={{ disabled: envs.length === 0 }}
      onOk={() => void submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="publish-dialog">
        <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={t('version.publishWarning')} />
        {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} /> : null}
        <Checkbox.Group<PublishEnv>
          value={envs}
          onChange={(v) => setEnvs(v)}
          options={open.map((e) => ({ value: e, label: t(`version.to${e}`) }))}
          data-testid="publish-envs"
        />
      </div>
    </Modal>
  );
}

/** Add or rename a stage. */
export function StageDialog({
  versionId,
  stage,
  nextOrder,
  onClose,
  onDone,
}: {
  versionId: number;
  stage?: StageRow;
  nextOrder: number;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation('design');
  const [form] = Form.useForm<{ name: string; sortOrder: number }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (v: { name: string; sortOrder: number }) => {
    setBusy(true);
    setError(null);
    try {
      await designApi.saveStage({
        id: stage?.id,
        versionId,
        name: v.name.trim(),
        sortOrder: v.sortOrder ?? 0,
      });
      onDone();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={stage ? t('stage.editTitle', { name: stage.name }) : t('stage.addTitle')}
      okText={t('save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="stage-dialog">
        {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          initialValues={{ name: stage?.name ?? '', sortOrder: stage?.sortOrder ?? nextOrder }}
          onFinish={(v) => void submit(v)}
        >
          <Form.Item
            name="name"
            label={t('stage.name')}
            rules={[
              { required: true, whitespace: true, message: t('rule.nameRequired') },
              { max: 50, message: t('rule.max', { max: 50 }) },
            ]}
          >
            <LimitedInput max={50} data-testid="stage-name" />
          </Form.Item>
          <Form.Item name="sortOrder" label={t('stage.order')}>
            <InputNumber min={0} precision={0} />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}
