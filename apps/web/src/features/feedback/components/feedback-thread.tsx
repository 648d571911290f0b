import { Timeline, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { FeedbackReply, FeedbackReplyKind } from '@esource/shared';

const COLOR: Record<FeedbackReplyKind, string> = { answer: 'green', close: 'gray', reopen: 'orange' };

/** The answers, closes and reopens of a feedback, oldest first. */
export function FeedbackThread({ replies, empty }: { replies: FeedbackReply[]; empty: string }) {
  const { t } = useTranslation('feedback');
  if (replies.length === 0) return <Typography.Text type="secondary">{empty}</Typography.Text>;
  return (
    <Timeline
      style={{ marginTop: 8, marginBottom: -16 }}
      items={replies.map((r) => ({
        key: r.id,
        color: COLOR[r.kind],
        content: (
          <div data-testid={`feedback-reply-${r.kind}`}>
            <Typography.Text strong>{r.userName ?? '—'}</Typography.Text>{' '}
            <Typography.Text type="secondary">
              {t(`acted.${r.kind}`)} · {dayjs(r.createTime).format('YYYY-MM-DD HH:mm')}
            </Typography.Text>
            {r.content ? (
              <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: '4px 0 0' }}>
                {r.content}
              </Typography.Paragraph>
            ) : null}
          </div>
        ),
      }))}
    />
  );
}
