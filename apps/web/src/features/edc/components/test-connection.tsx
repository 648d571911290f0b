import { useState } from 'react';
import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { edcApi, type EdcTestResult } from '../api/edc-api';

/** "Test connection": tries the saved settings; what the EDC answered, or why the call itself failed. */
export function useTestConnection() {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<EdcTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  return {
    busy,
    result,
    error,
    reset: () => {
      setResult(null);
      setError(null);
    },
    run: async () => {
      setBusy(true);
      setResult(null);
      setError(null);
      try {
        setResult(await edcApi.testConfig());
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
      } finally {
        setBusy(false);
      }
    },
  };
}

export function TestResult({ result, error }: { result: EdcTestResult | null; error: string | null }) {
  const { t } = useTranslation('edc');
  if (error)
    return (
      <Alert
        type="error"
        showIcon
        title={error}
        style={{ marginTop: 12 }}
        data-testid="edc-test-result"
        data-ok="false"
      />
    );
  if (!result) return null;
  const facts = [
    result.httpStatus !== null ? t('test.http', { status: result.httpStatus }) : null,
    t('test.ms', { ms: Math.round(result.ms) }),
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <Alert
      type={result.ok ? 'success' : 'error'}
      showIcon
      title={result.message}
      description={facts}
      style={{ marginTop: 12 }}
      data-testid="edc-test-result"
      data-ok={String(result.ok)}
    />
  );
}
