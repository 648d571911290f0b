import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { STATUS_COLOR } from '../subject-logic';

/** A subject status with the spec's label in the interface language. */
export function StatusTag({ status }: { status: number }) {
  const { t } = useTranslation('subjects');
  return (
    <Tag color={STATUS_COLOR[status] ?? 'default'} data-testid="subject-status">
      {t(`status.${status}`, { defaultValue: String(status) })}
    </Tag>
  );
}
