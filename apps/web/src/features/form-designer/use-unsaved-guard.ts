import { useTranslation } from 'react-i18next';
import { useUnsavedGuard as useGuard } from '../../lib/use-unsaved-guard';

/** The designer's unsaved-work guard (lib/use-unsaved-guard.ts): also a change of the query string counts as leaving. */
export function useUnsavedGuard(dirty: boolean): { clean: () => void } {
  const { t } = useTranslation('designer');
  return useGuard(dirty, { title: t('leave.title'), content: t('leave.content'), ok: t('leave.ok'), cancel: t('leave.cancel') }, { watchSearch: true, testIdPrefix: 'designer' });
}
