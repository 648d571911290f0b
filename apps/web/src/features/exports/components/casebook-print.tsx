import { useMemo, useState } from 'react';
import { Alert, Button, Checkbox, Form, Modal, Progress, Radio, Select, Space, Typography } from 'antd';
import { DownloadOutlined, PrinterOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { can, visitLabel, type Language, type ScheduleVisit } from '@esource/shared';
import { useAccess, useSession } from '../../session';
import { exportFileQuery, exportsApi, exportsKey, isLive } from '../api/exports-api';

interface PrintValues {
  mode: 'filled' | 'blank';
  history: boolean;
  signatures: boolean;
  language: Language;
  visitIds: number[];
  formIds: number[];
}

/**
 * "Print casebook" on the subject page (spec §7 /print/getByItext): the options (filled or blank, item history,
 * signatures, language, a subset of visits and forms), then the job's progress and the download once it is done.
 * Shown to holders of crf:casebook:export (the server checks it and the subject's site again).
 */
export function CasebookPrintButton({
  ptsId,
  ptsNo,
  visits,
}: {
  ptsId: number;
  ptsNo: string;
  visits: readonly ScheduleVisit[] | undefined;
}) {
  const { t } = useTranslation('exports');
  const access = useAccess();
  const [open, setOpen] = useState(false);
  if (!access || !can(access.pms, { anyOf: ['crf:casebook:export'] })) return null;
  return (
    <>
      <Button
        size="small"
        icon={<PrinterOutlined />}
        onClick={() => setOpen(true)}
        data-testid="casebook-print"
      >
        {t('print.button')}
      </Button>
      {open ? (
        <CasebookPrintDialog
          ptsId={ptsId}
          ptsNo={ptsNo}
          visits={visits ?? []}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}

function CasebookPrintDialog({
  ptsId,
  ptsNo,
  visits,
  onClose,
}: {
  ptsId: number;
  ptsNo: string;
  visits: readonly ScheduleVisit[];
  onClose: () => void;
}) {
  const { t } = useTranslation('exports');
  const language = useSession((s) => s.language);
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const qc = useQueryClient();
  const [form] = Form.useForm<PrintValues>();
  const mode = Form.useWatch('mode', form) ?? 'filled';
  const [fileId, setFileId] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const file = useQuery(exportFileQuery({ env, projectId }, fileId));

  // each planned visit once (an unscheduled visit's occurrences share its id), and every form they hold
  const visitOptions = useMemo(() => {
    const seen = new Map<number, string>();
    for (const v of visits)
      if (!seen.has(v.visitId))
        seen.set(v.visitId, `${v.code} ${v.unscheduled ? t('print.unscheduled') : visitLabel(v, language)}`);
    return [...seen].map(([value, label]) => ({ value, label }));
  }, [visits, language, t]);
  const formOptions = useMemo(() => {
    const seen = new Map<number, string>();
    for (const v of visits)
      for (const f of v.forms)
        if (!seen.has(f.formId))
          seen.set(f.formId, `${f.code} ${language === 'en_US' && f.nameEn ? f.nameEn : f.name}`);
    return [...seen].map(([value, label]) => ({ value, label }));
  }, [visits, language]);

  const start = async () => {
    const v = form.getFieldsValue();
    setBusy(true);
    setError(null);
    try {
      const f = await exportsApi.printCasebook({
        ptsId,
        mode: v.mode,
        history: v.mode === 'filled' && v.history,
        signatures: v.mode === 'filled' && v.signatures,
        language: v.language,
        visitIds: v.visitIds ?? [],
        formIds: v.formIds ?? [],
      });
      setFileId(f.id);
      void qc.invalidateQueries({ queryKey: [...exportsKey, 'list'] });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const f = file.data;
  return (
    <Modal
      open
      title={t('print.title', { ptsNo })}
      onCancel={onClose}
      width={560}
      footer={
        fileId === null ? (
          <Space>
            <Button onClick={onClose}>{t('cancel')}</Button>
            <Button
              type="primary"
              icon={<PrinterOutlined />}
              loading={busy}
              onClick={() => void start()}
              data-testid="casebook-start"
            >
              {t('print.start')}
            </Button>
          </Space>
        ) : (
          <Button onClick={onClose} data-testid="casebook-close">
            {t('close')}
          </Button>
        )
      }
    >
      {fileId === null ? (
        <Form<PrintValues>
          form={form}
          layout="vertical"
          initialValues={{
            mode: 'filled',
            history: false,
            signatures: true,
            language,
            visitIds: [],
            formIds: [],
          }}
          data-testid="casebook-options"
        >
          <Form.Item name="mode" label={t('print.mode')}>
            <Radio.Group
              data-testid="casebook-mode"
              options={[
                { value: 'filled', label: t('print.filled') },
                { value: 'blank', label: t('print.blank') },
              ]}
            />
          </Form.Item>
          <Space size={24}>
            <Form.Item name="history" valuePropName="checked" style={{ marginBottom: 12 }}>
              <Checkbox disabled={mode === 'blank'} data-testid="casebook-history">
                {t('print.history')}
              </Checkbox>
            </Form.Item>
            <Form.Item name="signatures" valuePropName="checked" style={{ marginBottom: 12 }}>
              <Checkbox disabled={mode === 'blank'} data-testid="casebook-signatures">
                {t('print.signatures')}
              </Checkbox>
            </Form.Item>
          </Space>
          <Form.Item name="language" label={t('print.language')}>
            <Radio.Group
              data-testid="casebook-language"
              options={[
                { value: 'zh_CN', label: '简体中文' },
                { value: 'en_US', label: 'English' },
              ]}
            />
          </Form.Item>
          <Form.Item name="visitIds" label={t('print.visits')} extra={t('print.allWhenEmpty')}>
            <Select
              mode="multiple"
              allowClear
              options={visitOptions}
              placeholder={t('print.allVisits')}
              data-testid="casebook-visits"
              showSearch={{ optionFilterProp: 'label' }}
            />
          </Form.Item>
          <Form.Item name="formIds" label={t('print.forms')}>
            <Select
              mode="multiple"
              allowClear
              options={formOptions}
              placeholder={t('print.allForms')}
              data-testid="casebook-forms"
              showSearch={{ optionFilterProp: 'label' }}
            />
          </Form.Item>
          {error ? <Alert type="error" showIcon title={error} data-testid="casebook-error" /> : null}
        </Form>
      ) : (
        <div data-testid="casebook-status">
          {!f || isLive(f) ? (
            <>
              <Typography.Paragraph>
                {t(f?.status === 'running' ? 'status.running' : 'status.queued')}
              </Typography.Paragraph>
              <Progress percent={f?.progress ?? 0} status="active" />
              {f && f.total > 0 ? (
                <Typography.Text type="secondary">
                  {t('print.formsDone', { done: f.done, total: f.total })}
                </Typography.Text>
              ) : null}
            </>
          ) : f.status === 'done' ? (
            <Space orientation="vertical" style={{ width: '100%' }}>
              <Alert type="success" showIcon title={t('print.ready', { name: f.fileName })} />
              <Button
                type="primary"
                icon={<DownloadOutlined />}
                onClick={() => void exportsApi.download(f)}
                data-testid="casebook-download"
              >
                {t('download')}
              </Button>
            </Space>
          ) : (
            <Alert
              type="error"
              showIcon
              title={t('status.failed')}
              description={f.errorMessage}
              data-testid="casebook-failed"
            />
          )}
          <Typography.Paragraph type="secondary" style={{ marginTop: 16, marginBottom: 0 }}>
            {t('print.later')} <Link to="/project/exportFiles">{t('print.myFiles')}</Link>
          </Typography.Paragraph>
        </div>
      )}
    </Modal>
  );
}
