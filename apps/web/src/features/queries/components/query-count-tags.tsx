import { Space, Tag, Tooltip, Typography } from 'antd';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { queryListPath, type QueryListTarget } from '../query-links';

/**
 * The open (red) and replied (blue) queries of a subject or a visit, each a link to the query list filtered to them
 * (issue 13 item 2). Nothing open or replied: a dash, or nothing at all when `hideZero`.
 */
export function QueryCountTags({
  open,
  replied,
  target,
  testId,
  hideZero = false,
}: {
  open: number;
  replied: number;
  target: Omit<QueryListTarget, 'status'>;
  testId: string;
  hideZero?: boolean;
}) {
  const { t } = useTranslation('queries');
  if (open === 0 && replied === 0) {
    return hideZero ? null : (
      <Typography.Text type="secondary" data-testid={testId}>
        —
      </Typography.Text>
    );
  }
  return (
    <Space size={4} wrap data-testid={testId}>
      {open > 0 ? (
        <Tooltip title={t('counts.openHint', { count: open })}>
          <Link to={queryListPath({ ...target, status: 1 })} data-testid={`${testId}-open`}>
            <Tag color="red" style={{ marginInlineEnd: 0, cursor: 'pointer' }}>
              {t('counts.open', { count: open })}
            </Tag>
          </Link>
        </Tooltip>
      ) : null}
      {replied > 0 ? (
        <Tooltip title={t('counts.repliedHint', { count: replied })}>
          <Link to={queryListPath({ ...target, status: 2 })} data-testid={`${testId}-replied`}>
            <Tag color="blue" style={{ marginInlineEnd: 0, cursor: 'pointer' }}>
              {t('counts.replied', { count: replied })}
            </Tag>
          </Link>
        </Tooltip>
      ) : null}
    </Space>
  );
}
