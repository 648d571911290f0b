import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

const COLOR: Record<number, string> = { 1: 'red', 2: 'gold', 3: 'default' };

/** A query's status (spec §4: querying, replied, closed), translated and coloured. */
export function QueryStatusTag({ status }: { status: number }) {
  const { t } = useTranslation('queries');
  return (
    <Tag color={COLOR[status] ?? 'default'} data-testid="query-status">
      {t(`status.${status}`, { defaultValue: String(status) })}
    </Tag>
  );
}
