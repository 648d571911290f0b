import { useState } from 'react';
import { App, Button, Checkbox, Form, Modal, Radio, Select } from 'antd';
import { ExportOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language, type StudyExportStart } from '@esource/shared';
import { formsQuery, versionsQuery } from '../../design';
import { useSession } from '../../session';
import { SiteFilter } from '../../subjects';
import { exportsApi, exportsKey } from '../api/exports-api';

type Values = { kind: StudyExportStart['kind']; versionId?: number; siteId?: number; formId?: number; audit: boolean; language: Language };

/**
 * "Export study data" (issue 14 item 7): CDISC ODM ClinicalData, Excel (a sheet per form) or Dataset-JSON of one
 * form, of a design version, all sites or one; made by a job, listed on this page when ready.
 */
export function StudyExportButton() {
  const { t } = useTranslation('exports');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const language = useSession((s) => s.language);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<Values>();
  const kind = Form.useWatch('kind', form);
  const versionId = Form.useWatch('versionId', form);
  const versions = useQuery({ ...versionsQuery({ env, projectId }), enabled: open && projectId !== null });
  const newest = versions.data?.[0]?.id ?? null;
  const forms = useQuery({ ...formsQuery({ env, projectId }, versionId ?? newest), enabled: open && kind === 'study-datasetjson' && (versionId ?? newest) !== null });
  const submit = async (v: Values) => {
    setBusy(true);
    try {
      await exportsApi.startStudy(v);
      void message.success(t('study.started'));
      setOpen(false);
      await qc.invalidateQueries({ queryKey: exportsKey });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button type="primary" icon={<ExportOutlined />} onClick={() => setOpen(true)} data-testid="study-export-open">
        {t('study.button')}
      </Button>
      <Modal
        open={open}
        title={t('study.title')}
        okText={t('study.start')}
        cancelText={t('cancel')}
        confirmLoading={busy}
        onOk={() => form.submit()}
        onCancel={() => setOpen(false)}
        destroyOnHidden
      >
        <Form<Values> form={form} layout="vertical" preserve={false} initialValues={{ kind: 'study-xlsx', audit: false, language }} onFinish={(v) => void submit(v)}>
          <Form.Item name="kind" label={t('study.format')}>
            <Radio.Group data-testid="study-export-kind">
              {(['study-xlsx', 'study-odm', 'study-datasetjson'] as const).map((k) => (
                <Radio key={k} value={k} style={{ display: 'block' }}>
                  {t(`study.${k.slice('study-'.length)}`)}
                </Radio>
              ))}
            </Radio.Group>
          </Form.Item>
          <Form.Item name="versionId" label={t('study.version')}>
            <Select allowClear placeholder={t('study.newest')} loading={versions.isLoading} options={(versions.data ?? []).map((v) => ({ value: v.id, label: `v${v.versionNo} ${v.name}` }))} />
          </Form.Item>
          <Form.Item name="siteId" label={t('study.site')}>
            <SiteFilter value={form.getFieldValue('siteId') as number | undefined} onChange={(v) => form.setFieldValue('siteId', v)} placeholder={t('study.allSites')} testId="study-export-site" />
          </Form.Item>
          {kind === 'study-datasetjson' ? (
            <Form.Item name="formId" label={t('study.form')} rules={[{ required: true }]}>
              <Select loading={forms.isLoading} options={(forms.data ?? []).map((f) => ({ value: f.id, label: `${f.code} ${f.name}` }))} data-testid="study-export-form" />
            </Form.Item>
          ) : null}
          {kind === 'study-odm' ? (
            <Form.Item name="audit" valuePropName="checked">
              <Checkbox>{t('study.audit')}</Checkbox>
            </Form.Item>
          ) : null}
          <Form.Item name="language" label={t('study.language')}>
            <Select options={LANGUAGES.map((l) => ({ value: l, label: l === 'zh_CN' ? '中文' : 'English' }))} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
