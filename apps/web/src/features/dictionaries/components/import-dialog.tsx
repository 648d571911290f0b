import { useEffect, useRef, useState } from 'react';
import { Alert, App, Button, Form, Modal, Select, Space, Table, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  DICTIONARY_KINDS,
  DICTIONARY_LIMITS,
  type DictionaryKind,
  type DictionaryView,
} from '@esource/shared';
import { LimitedInput, maxRule } from '../../../components/limited-input';
import { parseImportProblems, type ImportProblem } from '../../../components/xlsx-import';
import { ApiError } from '../../../lib/api-client';
import { afterDictionaryChange, dictionariesApi } from '../api/dictionaries-api';
import { TemplateButton } from './template-button';

interface Values {
  kind: DictionaryKind;
  version: string;
  name?: string;
  source?: string;
}

/**
 * Import a dictionary version from an .xlsx or .csv (all or nothing). With any bad row the server imports nothing and
 * names every bad row and column: they are listed here; a problem of the whole file (a wrong column, not a
 * spreadsheet) shows as one message, a taken version label on its field.
 */
export function ImportDialog({
  open,
  kind,
  onClose,
  onImported,
}: {
  open: boolean;
  kind: DictionaryKind;
  onClose: () => void;
  onImported: (v: DictionaryView) => void;
}) {
  const { t } = useTranslation('dictionaries');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState(false);
  const [problems, setProblems] = useState<ImportProblem[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const chosenKind = Form.useWatch('kind', form) ?? kind;
  const result = useRef<HTMLDivElement>(null);
  // a refused file's reasons are below the form: bring them into view
  useEffect(() => {
    if (problems || failure) result.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [problems, failure]);

  const mutation = useMutation({
    mutationFn: (v: Values & { file: File }) => dictionariesApi.importFile(v),
    onMutate: () => {
      setProblems(null);
      setFailure(null);
    },
    onSuccess: (d) => {
      void message.success(t('imported', { version: d.version, count: d.termCount }));
      void afterDictionaryChange(qc);
      onImported(d);
      close();
    },
    onError: (err) => {
      if (err instanceof ApiError && err.errorCode === 'DICTIONARY_VERSION_TAKEN') {
        form.setFields([{ name: 'version', errors: [err.message] }]);
        return;
      }
      if (err instanceof ApiError && err.detail.length > 0) {
        const list = parseImportProblems(err.detail);
        const fields = list.filter(
          (p) => p.row === null && ['kind', 'version', 'name', 'source'].includes(p.column),
        );
        if (fields.length)
          form.setFields(fields.map((p) => ({ name: p.column as keyof Values, errors: [p.message] })));
        const rest = list.filter((p) => !fields.includes(p));
        if (rest.some((p) => p.row !== null)) setProblems(rest);
        else if (rest.length) setFailure(rest.map((p) => p.message).join('; '));
      } else setFailure(err.message);
    },
  });

  function close() {
    form.resetFields();
    setFile(null);
    setFileError(false);
    setProblems(null);
    setFailure(null);
    onClose();
  }

  const submit = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!file) setFileError(true);
    if (!v || !file) return;
    mutation.mutate({ ...v, file });
  };

  const fileList: UploadFile[] = file ? [{ uid: '1', name: file.name, size: file.size, status: 'done' }] : [];
  const columnLabel = (c: string) => t(`columns.${c}`, { defaultValue: c });

  return (
    <Modal
      open={open}
      title={t('importTitle')}
      width={780}
      onCancel={close}
      destroyOnHidden
      footer={
        <Space>
          <Button onClick={close}>{t('cancel')}</Button>
          <Button
            type="primary"
            loading={mutation.isPending}
            onClick={() => void submit()}
            data-testid="dict-import-submit"
          >
            {t('submit')}
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph type="secondary">
        {t('importHint', {
          rows: DICTIONARY_LIMITS.maxRows.toLocaleString(),
          mb: DICTIONARY_LIMITS.maxBytes / 1024 / 1024,
        })}
      </Typography.Paragraph>
      <Form<Values> form={form} layout="vertical" initialValues={{ kind }} requiredMark>
        <div style={{ display: 'flex', gap: 12 }}>
          <Form.Item
            name="kind"
            label={t('field.kind')}
            rules={[{ required: true }]}
            style={{ flex: '0 0 180px' }}
          >
            <Select
              options={DICTIONARY_KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) }))}
              data-testid="dict-import-kind"
            />
          </Form.Item>
          <Form.Item
            name="version"
            label={t('field.version')}
            rules={[
              { required: true, whitespace: true, message: t('rule.versionRequired') },
              maxRule(DICTIONARY_LIMITS.versionMax),
            ]}
            style={{ flex: 1 }}
          >
            <LimitedInput
              max={DICTIONARY_LIMITS.versionMax}
              placeholder={t('placeholder.version')}
              data-testid="dict-import-version"
            />
          </Form.Item>
        </div>
        <div style={{ display: 'flex', gap: 12 }}>
          <Form.Item
            name="name"
            label={t('field.name')}
            rules={[maxRule(DICTIONARY_LIMITS.nameMax)]}
            style={{ flex: 1 }}
          >
            <LimitedInput
              max={DICTIONARY_LIMITS.nameMax}
              placeholder={t('placeholder.name')}
              data-testid="dict-import-name"
            />
          </Form.Item>
          <Form.Item
            name="source"
            label={t('field.source')}
            rules={[maxRule(DICTIONARY_LIMITS.sourceMax)]}
            style={{ flex: 1 }}
          >
            <LimitedInput
              max={DICTIONARY_LIMITS.sourceMax}
              placeholder={t('placeholder.source')}
              data-testid="dict-import-source"
            />
          </Form.Item>
        </div>
        <Form.Item
          label={
            <Space>
              {t('field.file')}
              <TemplateButton kind={chosenKind} size="small" />
            </Space>
          }
          required
          validateStatus={fileError ? 'error' : undefined}
          help={fileError ? t('rule.fileRequired') : undefined}
        >
          <Upload.Dragger
            accept=".xlsx,.csv,text/csv"
            maxCount={1}
            fileList={fileList}
            beforeUpload={(f) => {
              setFile(f);
              setFileError(false);
              setProblems(null);
              setFailure(null);
              return false;
            }}
            onRemove={() => {
              setFile(null);
              return true;
            }}
            data-testid="dict-import-upload"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('importDrop')}</p>
          </Upload.Dragger>
        </Form.Item>
      </Form>
      <div ref={result} />
      {failure ? (
        <Alert
          type="error"
          showIcon
          title={t('importFailed')}
          description={failure}
          data-testid="dict-import-failure"
        />
      ) : null}
      {problems ? (
        <div data-testid="dict-import-problems">
          <Alert
            type="error"
            showIcon
            title={t('importNothing')}
            description={t('importProblemCount', {
              count: problems.length,
              rows: new Set(problems.map((p) => p.row)).size,
            })}
            style={{ marginBottom: 12 }}
          />
          <Table<ImportProblem>
            size="small"
            rowKey={(p) => `${p.row}-${p.column}-${p.message}`}
            pagination={false}
            scroll={{ y: 260 }}
            dataSource={problems}
            columns={[
              { title: t('problemRow'), dataIndex: 'row', width: 80, render: (r: number | null) => r ?? '—' },
              {
                title: t('problemColumn'),
                dataIndex: 'column',
                width: 160,
                render: (c: string) => columnLabel(c),
              },
              { title: t('problemMessage'), dataIndex: 'message' },
            ]}
          />
        </div>
      ) : null}
    </Modal>
  );
}
