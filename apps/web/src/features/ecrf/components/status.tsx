import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export const CRF_STATUS_COLOR: Record<number, string> = { 0: 'default', 1: 'gold', 2: 'green', 3: 'blue' };

/** Form state: not started / draft / completed / certified. */
export function CrfStatusTag({ status, testId }: { status: number; testId?: string }) {
  const { t } = useTranslation('ecrf');
  return (
    <Tag color={CRF_STATUS_COLOR[status] ?? 'default'} data-testid={testId ?? 'crf-status'}>
      {t(`status.${status}`, { defaultValue: String(status) })}
    </Tag>
  );
}
