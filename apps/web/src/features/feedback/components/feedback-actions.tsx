import { useState } from 'react';
import { Alert, App, Button, Form, Segmented, Space, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { FEEDBACK_LIMITS, type FeedbackDetail, type FeedbackReplyKind } from '@esource/shared';
import { LimitedTextArea, maxRule } from '../../../components/limited-input';
import { ApiError } from '../../../lib/api-client';
import { validFields } from '../../../lib/validate-form';
import { afterFeedbackChange, feedbackApi } from '../api/feedback-api';

/**
 * Answer, close (with a note) or reopen one feedback, on the version shown. When someone else acted meanwhile the
 * server refuses and names them; the notice offers a reload, which drops the draft.
 */
export function FeedbackActions({ f, onReload }: { f: FeedbackDetail; onReload: () => void }) {
  const { t } = useTranslation('feedback');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<{ content?: string }>();
  const [mode, setMode] = useState<'answer' | 'close'>('answer');
  const [stale, setStale] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const kind: FeedbackReplyKind = f.status === 'closed' ? 'reopen' : mode;
  const m = useMutation({
    mutationFn: (content: string | undefined) => feedbackApi.step(kind, f.id, f.version, content),
    onSuccess: async () => {
      form.resetFields();
      setError(null);
      void message.success(
        kind === 'answer'
          ? t('answered', { name: f.userName })
          : kind === 'close'
            ? t('closedDone')
            : t('reopened'),
      );
      if (kind === 'reopen') setMode('answer');
      await afterFeedbackChange(qc);
    },
    onError: (e) => {
      if (
        e instanceof ApiError &&
        (e.errorCode === 'FEEDBACK_STALE' ||
          e.errorCode === 'FEEDBACK_CLOSED' ||
          e.errorCode === 'FEEDBACK_NOT_CLOSED')
      )
        setStale(e.message);
      else setError(e instanceof Error ? e.message : String(e));
    },
  });
  const submit = () =>
    void validFields(form).then((v) => {
      if (v) m.mutate(v.content?.trim() || undefined);
    });
  const required = kind !== 'reopen';
  return (
    <div data-testid="feedback-actions">
      {stale ? (
        <Alert
          type="warning"
          showIcon
          title={t('staleTitle')}
          description={stale}
          style={{ marginBottom: 12 }}
          data-testid="feedback-stale"
          action={
            <Button
              size="small"
              onClick={() => {
                setStale(null);
                form.resetFields();
                onReload();
              }}
              data-testid="feedback-reload"
            >
              {t('reload')}
            </Button>
          }
        />
      ) : null}
      {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} /> : null}
      {f.status === 'closed' ? (
        <Typography.Paragraph type="secondary">{t('closedHint')}</Typography.Paragraph>
      ) : (
        <Segmented<'answer' | 'close'>
          value={mode}
          onChange={setMode}
          options={[
            { value: 'answer', label: <span data-testid="feedback-mode-answer">{t('mode.answer')}</span> },
            { value: 'close', label: <span data-testid="feedback-mode-close">{t('mode.close')}</span> },
          ]}
          style={{ marginBottom: 12 }}
        />
      )}
      <Form form={form} layout="vertical" requiredMark={false}>
        <Form.Item
          name="content"
          label={kind === 'answer' ? t('answerLabel') : kind === 'close' ? t('closeLabel') : t('reopenLabel')}
          rules={[
            ...(required ? [{ required: true, whitespace: true, message: t('noteRequired') }] : []),
            maxRule(FEEDBACK_LIMITS.textMax),
          ]}
        >
          <LimitedTextArea
            max={FEEDBACK_LIMITS.textMax}
            rows={4}
            placeholder={
              kind === 'answer'
                ? t('answerPlaceholder', { name: f.userName })
                : kind === 'close'
                  ? t('closePlaceholder', { name: f.userName })
                  : undefined
            }
            data-testid="feedback-reply-text"
          />
        </Form.Item>
      </Form>
      <Space style={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button
          type="primary"
          danger={kind === 'close'}
          loading={m.isPending}
          disabled={stale !== null}
          onClick={submit}
          data-testid={`feedback-submit-${kind}`}
        >
          {kind === 'answer' ? t('sendAnswer') : kind === 'close' ? t('closeFeedback') : t('reopen')}
        </Button>
      </Space>
    </div>
  );
}
