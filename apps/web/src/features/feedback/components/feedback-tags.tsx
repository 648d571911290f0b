import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FeedbackCategory, FeedbackStatus } from '@esource/shared';

const CATEGORY_COLOR: Record<FeedbackCategory, string> = {
  bug: 'red',
  suggestion: 'blue',
  question: 'gold',
  other: 'default',
};
const STATUS_COLOR: Record<FeedbackStatus, string> = {
  open: 'orange',
  answered: 'green',
  closed: 'default',
};

export function CategoryTag({ category }: { category: FeedbackCategory }) {
  const { t } = useTranslation('feedback');
  return <Tag color={CATEGORY_COLOR[category]}>{t(`category.${category}`)}</Tag>;
}

export function StatusTag({ status }: { status: FeedbackStatus }) {
  const { t } = useTranslation('feedback');
  return (
    <Tag color={STATUS_COLOR[status]} data-testid="feedback-status" data-status={status}>
      {t(`status.${status}`)}
    </Tag>
  );
}
