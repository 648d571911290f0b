import { useState } from 'react';
import { Alert, Button, Form, Radio, Space, Typography, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { PictureOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  FEEDBACK_CATEGORIES,
  FEEDBACK_LIMITS,
  LIMITS,
  feedbackPagePath,
  type FeedbackCategory,
} from '@esource/shared';
import { LimitedTextArea, maxRule } from '../../../components/limited-input';
import { ApiError } from '../../../lib/api-client';
import { validFields } from '../../../lib/validate-form';
import { afterFeedbackChange, feedbackApi } from '../api/feedback-api';

const MB = 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg'];

interface Values {
  category: FeedbackCategory;
  content: string;
}

/**
 * The send tab of the feedback dialog: category, description (2,000 characters), an optional screenshot (PNG/JPG ≤ 2 MB,
 * checked here for type and size and again by content on the server) and the page the user is on (path only).
 * Refusals (a flood, a damaged image) are shown in the dialog; field problems on their fields.
 */
export function SendFeedbackForm({
  pagePath,
  onSent,
  onCancel,
}: {
  pagePath: string;
  onSent: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('feedback');
  const qc = useQueryClient();
  const [form] = Form.useForm<Values>();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = feedbackPagePath(pagePath) ?? '';

  const pick = (f: File) => {
    setFileError(null);
    if (!IMAGE_TYPES.includes(f.type)) setFileError(t('screenshotType', { name: f.name }));
    else if (f.size > LIMITS.imageMaxBytes)
      setFileError(t('screenshotTooLarge', { name: f.name, mb: LIMITS.imageMaxBytes / MB }));
    else {
      if (preview) URL.revokeObjectURL(preview);
      setFile(f);
      setPreview(URL.createObjectURL(f));
    }
  };
  const drop = () => {
    if (preview) URL.revokeObjectURL(preview);
    setFile(null);
    setPreview(null);
    setFileError(null);
  };

  const m = useMutation({
    mutationFn: (v: Values) => feedbackApi.add({ ...v, pagePath: path, screenshot: file ?? undefined }),
    onSuccess: async () => {
      form.resetFields();
      drop();
      setError(null);
      await afterFeedbackChange(qc);
      onSent();
    },
    onError: (e) => {
      if (e instanceof ApiError && e.detail.length > 0) {
        const onFields = e.detail.filter((d) => d.field === 'category' || d.field === 'content');
        form.setFields(onFields.map((d) => ({ name: d.field as keyof Values, errors: [d.message] })));
        const shot = e.detail.find((d) => d.field === 'screenshot');
        if (shot) setFileError(shot.message);
        if (onFields.length + (shot ? 1 : 0) === e.detail.length) {
          setError(null);
          return;
        }
      }
      setError(e instanceof Error ? e.message : String(e));
    },
  });

  const uploadList: UploadFile[] =
    file && preview
      ? [{ uid: 'shot', name: file.name, status: 'done', url: preview, thumbUrl: preview }]
      : [];
  return (
    <Form<Values>
      form={form}
      layout="vertical"
      initialValues={{ category: 'bug' }}
      requiredMark={false}
      data-testid="feedback-form"
    >
      <Typography.Paragraph type="secondary">{t('intro')}</Typography.Paragraph>
      {error ? (
        <Alert
          type="error"
          showIcon
          title={error}
          style={{ marginBottom: 16 }}
          data-testid="feedback-send-error"
        />
      ) : null}
      <Form.Item name="category" label={t('fields.category')}>
        <Radio.Group
          optionType="button"
          buttonStyle="solid"
          options={FEEDBACK_CATEGORIES.map((c) => ({
            value: c,
            label: <span data-testid={`feedback-category-${c}`}>{t(`category.${c}`)}</span>,
          }))}
        />
      </Form.Item>
      <Form.Item
        name="content"
        label={t('fields.content')}
        rules={[
          { required: true, whitespace: true, message: t('contentRequired') },
          maxRule(FEEDBACK_LIMITS.textMax),
        ]}
      >
        <LimitedTextArea
          max={FEEDBACK_LIMITS.textMax}
          rows={6}
          placeholder={t('contentPlaceholder')}
          data-testid="feedback-content"
        />
      </Form.Item>
      <Form.Item
        label={t('fields.screenshot')}
        extra={t('screenshotHint', { mb: LIMITS.imageMaxBytes / MB })}
        validateStatus={fileError ? 'error' : undefined}
        help={fileError ?? undefined}
      >
        <Upload
          listType="picture"
          accept=".png,.jpg,.jpeg,image/png,image/jpeg"
          maxCount={1}
          fileList={uploadList}
          beforeUpload={(f) => {
            pick(f);
            return Upload.LIST_IGNORE;
          }}
          onRemove={() => {
            drop();
            return true;
          }}
          data-testid="feedback-screenshot-upload"
        >
          {file ? null : <Button icon={<PictureOutlined />}>{t('chooseScreenshot')}</Button>}
        </Upload>
      </Form.Item>
      <Form.Item label={t('fields.page')} extra={t('pageHint')} style={{ marginBottom: 8 }}>
        <Typography.Text code data-testid="feedback-page-path">
          {path || t('noPage')}
        </Typography.Text>
      </Form.Item>
      <Space style={{ display: 'flex', justifyContent: 'flex-end', marginTop: 16 }}>
        <Button onClick={onCancel}>{t('cancel')}</Button>
        <Button
          type="primary"
          loading={m.isPending}
          onClick={() => void validFields(form).then((v) => v && m.mutate(v))}
          data-testid="feedback-send"
        >
          {t('send')}
        </Button>
      </Space>
    </Form>
  );
}
