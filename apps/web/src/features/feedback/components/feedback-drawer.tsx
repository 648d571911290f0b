import { Descriptions, Divider, Drawer, Result, Skeleton, Space, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { feedbackDetailQuery } from '../api/feedback-api';
import { CategoryTag, StatusTag } from './feedback-tags';
import { FeedbackThread } from './feedback-thread';
import { FeedbackActions } from './feedback-actions';
import { ScreenshotImage } from './screenshot-image';

/** One feedback for an administrator: who sent it from where, the text, the screenshot, the thread and the actions. */
export function FeedbackDrawer({
  id,
  canReply,
  onClose,
}: {
  id: number | null;
  canReply: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('feedback');
  const q = useQuery(feedbackDetailQuery(id));
  const f = q.data && q.data.id === id ? q.data : null;
  return (
    <Drawer
      open={id !== null}
      onClose={onClose}
      size={640}
      destroyOnHidden
      rootClassName="feedback-drawer"
      title={
        f ? (
          <Space size={8}>
            <span>{t('detailTitle', { id: f.id })}</span>
            <CategoryTag category={f.category} />
            <StatusTag status={f.status} />
          </Space>
        ) : (
          t('title')
        )
      }
    >
      {q.isError && !f ? (
        <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} />
      ) : null}
      {!f && !q.isError ? <Skeleton active /> : null}
      {f ? (
        <div data-testid="feedback-detail" data-version={f.version}>
          <Descriptions column={2} size="small" bordered styles={{ label: { width: 100 } }}>
            <Descriptions.Item label={t('fields.sender')} span={2}>
              {f.userName} <Typography.Text type="secondary">({f.userAccount})</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('fields.time')}>
              {dayjs(f.createTime).format('YYYY-MM-DD HH:mm:ss')}
            </Descriptions.Item>
            <Descriptions.Item label={t('fields.env')}>
              <Tag>{f.env}</Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('fields.page')} span={2}>
              {f.pagePath ? (
                <Typography.Text code copyable>
                  {f.pagePath}
                </Typography.Text>
              ) : (
                t('noPage')
              )}
            </Descriptions.Item>
            {f.userAgent ? (
              <Descriptions.Item label={t('fields.browser')} span={2}>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {f.userAgent}
                </Typography.Text>
              </Descriptions.Item>
            ) : null}
          </Descriptions>
          <Typography.Paragraph
            style={{ whiteSpace: 'pre-wrap', marginTop: 16, fontSize: 15 }}
            data-testid="feedback-detail-content"
          >
            {f.content}
          </Typography.Paragraph>
          {f.hasScreenshot ? <ScreenshotImage id={f.id} height={240} /> : null}
          <Divider titlePlacement="start" plain>
            {t('thread')}
          </Divider>
          <FeedbackThread replies={f.replies} empty={t('noAnswer')} />
          {canReply ? (
            <>
              <Divider />
              <FeedbackActions key={f.id} f={f} onReload={() => void q.refetch()} />
            </>
          ) : (
            <Typography.Paragraph type="secondary" style={{ marginTop: 24 }}>
              {t('readOnly')}
            </Typography.Paragraph>
          )}
        </div>
      ) : null}
    </Drawer>
  );
}
