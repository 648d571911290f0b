import { App } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EdcRunView } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { afterSyncStart, edcApi, type SyncScope } from '../api/edc-api';
import { ProblemList } from './problem-list';

/**
 * Starts a sync after a confirmation: the run it queued goes to `onStarted` and the lists are read again. A sync the
 * server refuses because the mapping has problems shows each problem as the server worded it.
 */
export function useStartSync(onStarted: (run: EdcRunView) => void) {
  const { t } = useTranslation('edc');
  const { modal, message } = App.useApp();
  const qc = useQueryClient();
  return (scope: SyncScope, what: string): void => {
    modal.confirm({
      title: t('sync.confirmTitle'),
      content: t(`sync.confirm.${scope.scope}`, { what }),
      okText: t('sync.start'),
      cancelText: t('cancel'),
      okButtonProps: { 'data-testid': 'edc-sync-confirm' },
      onOk: async () => {
        try {
          const run = await edcApi.start(scope);
          onStarted(run);
          void message.success(t('sync.queued', { id: run.id }));
        } catch (e) {
          if (e instanceof ApiError && e.errorCode === 'EDC_MAPPING_INVALID') {
            modal.error({
              title: t('sync.mappingInvalid'),
              width: 640,
              content: (
                <div data-testid="edc-sync-refused">
                  <ProblemList
                    messages={e.detail.length ? e.detail.map((d) => d.message) : [e.message]}
                    title={t('sync.mappingInvalidHint')}
                    testId="edc-sync-problems"
                  />
                </div>
              ),
              okText: t('close'),
            });
          } else void message.error(e instanceof Error ? e.message : String(e));
        } finally {
          await afterSyncStart(qc);
        }
      },
    });
  };
}

/** What the sync tabs (sites, subjects) are given by the page. */
export interface SyncTabProps {
  scope: { env: string; projectId: number | null };
  /** a run is pending or syncing: the lists are polled */
  poll: boolean;
  /** edc:sync:execute */
  canExecute: boolean;
  start: ReturnType<typeof useStartSync>;
}
