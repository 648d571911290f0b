import { useState } from 'react';
import { Alert, App, Button, DatePicker, Form, Modal, Select, Typography } from 'antd';
import { CloudDownloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Dayjs } from 'dayjs';
import { ApiError } from '../../../lib/api-client';
import { usePms, useSession } from '../../session';
import { afterSourceChange, gatherPtsQuery, sourcesApi } from '../api/sources-api';

/**
 * "Run extraction" for one subject (POST /project/managePts/addPtsTask): an optional date window and connection
 * (default: every enabled connection of the subject's site). The task's progress shows in the progress panel
 * (type 2) and on the page; a subject with a task already queued or running is refused with the server's reason.
 * Only for users with source:extract:execute; nothing is rendered for others.
 */
export function RunExtractionButton({
  ptsId,
  size,
  type = 'primary',
}: {
  ptsId: number;
  size?: 'small' | 'middle';
  type?: 'primary' | 'default';
}) {
  const { t } = useTranslation('sources');
  const has = usePms();
  const [open, setOpen] = useState(false);
  if (!has('source:extract:execute')) return null;
  return (
    <>
      <Button
        type={type}
        size={size}
        icon={<CloudDownloadOutlined />}
        onClick={() => setOpen(true)}
        data-testid="run-extraction"
      >
        {t('run.button')}
      </Button>
      {open ? <RunExtractionDialog ptsId={ptsId} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function RunExtractionDialog({ ptsId, onClose }: { ptsId: number; onClose: () => void }) {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const detail = useQuery(gatherPtsQuery({ env, projectId }, ptsId));
  const connections = (detail.data?.connections ?? []).filter((c) => c.enabled && c.kind !== 'hl7v2');
  const [form] = Form.useForm<{ range?: [Dayjs, Dayjs] | null; connectionId?: number }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    const v = form.getFieldsValue();
    setBusy(true);
    setError(null);
    try {
      await sourcesApi.addPtsTask({
        ptsId,
        ...(v.connectionId ? { connectionId: v.connectionId } : {}),
        ...(v.range ? { dateFrom: v.range[0].format('YYYY-MM-DD'), dateTo: v.range[1].format('YYYY-MM-DD') } : {}),
      });
      void message.success(t('run.queued'));
      await afterSourceChange(qc);
      onClose();
    } catch (e) {
      setError(e instanceof ApiError || e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const none = detail.isSuccess && connections.length === 0;
  return (
    <Modal
      open
      title={t('run.title', { no: detail.data?.ptsNo ?? '' })}
      okText={t('run.ok')}
      cancelText={t('cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
      okButtonProps={{ disabled: none, 'data-testid': 'run-extraction-ok' }}
    >
      <Typography.Paragraph type="secondary">{t('run.description')}</Typography.Paragraph>
      {none ? <Alert type="warning" showIcon title={t('run.noConnection')} style={{ marginBottom: 12 }} /> : null}
      <Form form={form} layout="vertical">
        <Form.Item name="range" label={t('run.window')} extra={t('run.windowHint')}>
          <DatePicker.RangePicker style={{ width: '100%' }} data-testid="run-window" />
        </Form.Item>
        <Form.Item name="connectionId" label={t('run.connection')}>
          <Select
            allowClear
            loading={detail.isLoading}
            placeholder={t('run.allConnections')}
            options={connections.map((c) => ({ value: c.id, label: `${c.name} (${t(`kind.${c.kind}`)})` }))}
            data-testid="run-connection"
          />
        </Form.Item>
      </Form>
      {error ? <Alert type="error" showIcon title={error} data-testid="run-error" /> : null}
    </Modal>
  );
}
