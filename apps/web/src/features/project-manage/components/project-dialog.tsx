import { useState } from 'react';
import { Alert, Button, Checkbox, Form, Modal, Radio, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { FIVE_FUNCTION_KEYS, LIMITS, type ProjectDetail } from '@esource/shared';
import { projectManageApi } from '../api/project-manage-api';
import {
  EMPTY_PROJECT,
  projectBody,
  projectFormValues,
  projectPatch,
  serverProblems,
  type ProjectFormValues,
} from '../project-form';
import { LimitedInput } from '../../../components/limited-input';

const FIELDS = ['no', 'name', 'scene', 'fileConfirmConfig', 'autoPrefillDisabled', 'functions'] as const;

interface Props {
  mode: 'create' | 'edit';
  project?: ProjectDetail;
  onClose: () => void;
  onSaved: (p: ProjectDetail) => void;
  /** loads the project again (after someone else changed it) */
  reload?: () => Promise<ProjectDetail | undefined>;
}

/** Create or edit a project (spec §3 fields, §5: number ≤ 20, full name ≤ 100). */
export function ProjectDialog({ mode, project, onClose, onSaved, reload }: Props) {
  const { t } = useTranslation('projectManage');
  const [form] = Form.useForm<ProjectFormValues>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [base, setBase] = useState<ProjectDetail | undefined>(project);

  const submit = async (values: ProjectFormValues) => {
    setGeneral(null);
    setStale(null);
    setBusy(true);
    try {
      if (mode === 'create') {
        onSaved(await projectManageApi.create(projectBody(values)));
      } else if (base) {
        const patch = projectPatch(base, values);
        if (!patch) {
          onClose();
          return;
        }
        onSaved(await projectManageApi.update(patch));
      }
    } catch (e) {
      const p = serverProblems(e, FIELDS);
      if (p.errorCode === 'STALE_WRITE') setStale(p.general);
      else {
        form.setFields(p.fields as Parameters<typeof form.setFields>[0]);
        setGeneral(p.general);
      }
    } finally {
      setBusy(false);
    }
  };

  const doReload = async () => {
    const fresh = await reload?.();
    if (!fresh) return;
    setBase(fresh);
    setStale(null);
    form.setFieldsValue(projectFormValues(fresh));
  };

  return (
    <Modal
      open
      title={mode === 'create' ? t('create.title') : t('edit.title', { no: project?.no ?? '' })}
      okText={t('save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      width={620}
      mask={{ closable: false }}
    >
      <div data-testid="project-dialog">
        {stale ? (
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 16 }}
            title={t('edit.staleTitle')}
            description={stale}
            data-testid="project-stale"
            action={
              <Button size="small" onClick={() => void doReload()} data-testid="project-reload">
                {t('edit.reload')}
              </Button>
            }
          />
        ) : null}
        {general ? (
          <Alert
            type="error"
            showIcon
            style={{ marginBottom: 16 }}
            title={general}
            data-testid="project-error"
          />
        ) : null}
        <Form<ProjectFormValues>
          form={form}
          layout="vertical"
          initialValues={project ? projectFormValues(project) : EMPTY_PROJECT}
          onFinish={(v) => void submit(v)}
          requiredMark
        >
          <Form.Item
            name="no"
            label={t('field.no')}
            extra={t('field.noHelp', { max: LIMITS.projectNoMax })}
            rules={[
              { required: true, whitespace: true, message: t('rule.noRequired') },
              { max: LIMITS.projectNoMax, message: t('rule.noMax', { max: LIMITS.projectNoMax }) },
            ]}
          >
            <LimitedInput max={LIMITS.projectNoMax} data-testid="project-no" autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="name"
            label={t('field.name')}
            rules={[
              { required: true, whitespace: true, message: t('rule.nameRequired') },
              { max: LIMITS.projectNameMax, message: t('rule.nameMax', { max: LIMITS.projectNameMax }) },
            ]}
          >
            <LimitedInput max={LIMITS.projectNameMax} data-testid="project-name" autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="scene"
            label={t('field.scene')}
            extra={t('field.sceneHelp')}
            rules={[{ required: true }]}
          >
            <Radio.Group data-testid="project-scene">
              <Radio value={1}>{t('scene.1')}</Radio>
              <Radio value={2}>{t('scene.2')}</Radio>
            </Radio.Group>
          </Form.Item>
          <Form.Item
            name="fileConfirmConfig"
            label={t('field.fileConfirmConfig')}
            extra={t('field.fileConfirmConfigHelp')}
            valuePropName="checked"
          >
            <Switch data-testid="project-file-confirm" />
          </Form.Item>
          <Form.Item
            name="autoPrefillDisabled"
            label={t('field.autoPrefillDisabled')}
            extra={t('field.autoPrefillDisabledHelp')}
            valuePropName="checked"
          >
            <Switch data-testid="project-prefill-off" />
          </Form.Item>
          <Form.Item
            name="functions"
            label={t('field.configFiveFunction')}
            extra={t('field.configFiveFunctionHelp')}
          >
            <Checkbox.Group
              data-testid="project-five"
              style={{ display: 'flex', flexDirection: 'column', gap: 4 }}
              options={FIVE_FUNCTION_KEYS.map((k) => ({
                value: k,
                label: <span data-testid={`project-fn-${k}`}>{t(`fn.${k}`)}</span>,
              }))}
            />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}
