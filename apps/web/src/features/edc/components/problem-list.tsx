import { Alert, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** What blocks a sync, as the server worded it (a mapping's problems, or a refused sync's detail). */
export function ProblemList({
  messages,
  title,
  testId,
}: {
  messages: string[];
  title?: string;
  testId?: string;
}) {
  const { t } = useTranslation('edc');
  if (!messages.length) return null;
  const shown = messages.slice(0, 50);
  return (
    <Alert
      type="error"
      showIcon
      data-testid={testId}
      title={title ?? t('mapping.problems', { count: messages.length })}
      description={
        <>
          <ul style={{ margin: 0, paddingInlineStart: 18, maxHeight: 240, overflowY: 'auto' }}>
            {shown.map((m, i) => (
              <li key={i} data-testid={testId ? `${testId}-item` : undefined}>
                {m}
              </li>
            ))}
          </ul>
          {messages.length > shown.length ? (
            <Typography.Text type="secondary">
              {t('mapping.moreProblems', { count: messages.length - shown.length })}
            </Typography.Text>
          ) : null}
        </>
      }
    />
  );
}
