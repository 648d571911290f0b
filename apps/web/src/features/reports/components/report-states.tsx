import type { ReactNode } from 'react';
import { Button, Empty, Result, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../../lib/download';
import dayjs from 'dayjs';

/** The first load of a report tab: the shape of what comes (cards, a chart). */
export function ReportLoading({ testId }: { testId: string }) {
  return (
    <div data-testid={`${testId}-loading`}>
      <Skeleton active paragraph={{ rows: 2 }} />
      <Skeleton.Node active style={{ width: '100%', height: 220 }} />
    </div>
  );
}

/** A first load that failed: the reason and a retry. */
export function ReportError({
  testId,
  message,
  onRetry,
}: {
  testId: string;
  message: string;
  onRetry: () => void;
}) {
  const { t } = useTranslation('reports');
  return (
    <Result
      status="warning"
      title={t('loadFailed')}
      subTitle={message}
      extra={<Button onClick={onRetry}>{t('retry')}</Button>}
      data-testid={`${testId}-error`}
    />
  );
}

/** Nothing to show: why (nothing yet, or the filters), and the way out when filters hide it. */
export function ReportEmpty({
  testId,
  text,
  hint,
  onClear,
}: {
  testId: string;
  text: string;
  hint?: ReactNode;
  onClear?: (() => void) | undefined;
}) {
  const { t } = useTranslation('reports');
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      data-testid={`${testId}-empty`}
      description={
        <>
          <div>{text}</div>
          {hint ? <div className="report-empty-hint">{hint}</div> : null}
        </>
      }
    >
      {onClear ? <Button onClick={onClear}>{t('clearFilters')}</Button> : null}
    </Empty>
  );
}

/** Downloads an export under `<name>-<yyyymmdd-hhmm>.xlsx`; the API client has already shown a failure. */
export async function download(
  fetchFile: () => Promise<Blob>,
  name: string,
  setBusy: (b: boolean) => void,
): Promise<void> {
  setBusy(true);
  try {
    saveBlob(await fetchFile(), `${name}-${dayjs().format('YYYYMMDD-HHmm')}.xlsx`);
  } catch {
    // the API client has already shown the server's (translated) message
  } finally {
    setBusy(false);
  }
}
