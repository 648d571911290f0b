import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export const VISIT_STATE_COLOR: Record<string, string> = {
  upcoming: 'default',
  inWindow: 'processing',
  overdue: 'error',
  done: 'success',
};

/** upcoming / in window / overdue / done */
export function VisitStateTag({ state }: { state: string }) {
  const { t } = useTranslation('subjects');
  return (
    <Tag color={VISIT_STATE_COLOR[state] ?? 'default'} data-testid="visit-state">
      {t(`visitState.${state}`, { defaultValue: state })}
    </Tag>
  );
}
