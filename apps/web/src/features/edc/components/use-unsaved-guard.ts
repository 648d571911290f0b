import { useTranslation } from 'react-i18next';
import { useUnsavedGuard as useGuard } from '../../../lib/use-unsaved-guard';

/** The mapping editor's unsaved-changes guard (lib/use-unsaved-guard.ts): leaving the page, or another version. */
export function useUnsavedGuard(dirty: boolean): { confirmDiscard: (then: () => void) => void } {
  const { t } = useTranslation('edc');
  return useGuard(dirty, { title: t('leave.title'), content: t('leave.content'), ok: t('leave.ok'), cancel: t('leave.cancel') }, { testIdPrefix: 'edc' });
}
