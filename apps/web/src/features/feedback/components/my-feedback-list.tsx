import { useState } from 'react';
import { Empty, List, Pagination, Result, Button, Space, Typography } from 'antd';
import { PictureOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { LIMITS, type FeedbackDetail } from '@esource/shared';
import { usePaging } from '../../../components/paged-table';
import { feedbackMineQuery } from '../api/feedback-api';
import { CategoryTag, StatusTag } from './feedback-tags';
import { FeedbackThread } from './feedback-thread';
import { ScreenshotImage } from './screenshot-image';

/** "My feedback": what the user sent, newest first, each with its status, screenshot and answers. */
export function MyFeedbackList({ active }: { active: boolean }) {
  const { t } = useTranslation('feedback');
  const { pageNumber: page, pageSize, onPage } = usePaging();
  const [shots, setShots] = useState<Set<number>>(new Set());
  const q = useQuery(feedbackMineQuery(page, pageSize, active));
  if (q.isError && !q.data) {
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
      />
    );
  }
  const rows = q.data?.content ?? [];
  return (
    <div data-testid="feedback-mine">
      <List<FeedbackDetail>
        loading={q.isFetching && !q.data}
        dataSource={rows}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('mineEmpty')} /> }}
        style={{ maxHeight: 480, overflowY: 'auto', paddingInlineEnd: 8 }}
        renderItem={(f) => (
          <List.Item key={f.id} data-testid={`feedback-mine-${f.id}`} style={{ display: 'block' }}>
            <Space size={4} wrap style={{ marginBottom: 6 }}>
              <Typography.Text strong>#{f.id}</Typography.Text>
              <CategoryTag category={f.category} />
              <StatusTag status={f.status} />
              <Typography.Text type="secondary">
                {dayjs(f.createTime).format('YYYY-MM-DD HH:mm')}
              </Typography.Text>
              {f.pagePath ? (
                <Typography.Text type="secondary" code ellipsis style={{ maxWidth: 220 }}>
                  {f.pagePath}
                </Typography.Text>
              ) : null}
            </Space>
            <Typography.Paragraph
              style={{ whiteSpace: 'pre-wrap', marginBottom: 8 }}
              ellipsis={{ rows: 4, expandable: 'collapsible' }}
            >
              {f.content}
            </Typography.Paragraph>
            {f.hasScreenshot ? (
              shots.has(f.id) ? (
                <div style={{ marginBottom: 8 }}>
                  <ScreenshotImage id={f.id} height={120} />
                </div>
              ) : (
                <Button
                  size="small"
                  type="link"
                  icon={<PictureOutlined />}
                  style={{ paddingInline: 0 }}
                  onClick={() => setShots((s) => new Set(s).add(f.id))}
                >
                  {t('fields.screenshot')}
                </Button>
              )
            ) : null}
            <div style={{ background: '#fafafa', borderRadius: 6, padding: '10px 12px 4px' }}>
              <FeedbackThread replies={f.replies} empty={t('noAnswer')} />
              {f.replies.length === 0 ? <div style={{ height: 8 }} /> : null}
            </div>
          </List.Item>
        )}
      />
      {(q.data?.totalCount ?? 0) > pageSize ? (
        <Pagination
          size="small"
          style={{ marginTop: 12, textAlign: 'end' }}
          current={page}
          pageSize={pageSize}
          total={q.data?.totalCount ?? 0}
          pageSizeOptions={LIMITS.pageSizes.map(String)}
          onChange={onPage}
        />
      ) : null}
    </div>
  );
}
