import { useMemo, useState } from 'react';
import { Alert, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  DEID_IMPORT_TEXT_MAX,
  DEID_KEYWORD_MAX,
  parseKeywordLines,
  type DeidKeywordImportResult,
} from '@esource/shared';
import { deidConfigApi } from '../api/deid-config-api';

/** Problem lines listed in the dialog; the rest are counted. */
const SHOWN = 20;

/**
 * Bulk import from pasted text, one keyword per line. The text is read as the server reads it (shared
 * parseKeywordLines) while typing: how many keywords, how many repeated lines, and the lines to fix — with line numbers
 * of this text — before anything is sent. The server's refusal (limit, a bad line after all) is shown as it says it.
 */
export function ImportDialog({
  onClose,
  onDone,
}: {
  onClose: () => void;
  onDone: (r: DeidKeywordImportResult) => Promise<void>;
}) {
  const { t } = useTranslation('deidConfig');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const parsed = useMemo(() => parseKeywordLines(text), [text]);
  const tooLong = text.length > DEID_IMPORT_TEXT_MAX;
  const canSend = parsed.keywords.length > 0 && parsed.problems.length === 0 && !tooLong;

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await onDone(await deidConfigApi.importKeywords(text));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      width={640}
      title={t('import.title')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('import.ok')}
      cancelText={t('cancel')}
      confirmLoading={busy}
      okButtonProps={{ disabled: !canSend, 'data-testid': 'deid-import-ok' }}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('import.help')}</Typography.Paragraph>
      <Input.TextArea
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={10}
        placeholder={t('import.placeholder')}
        status={parsed.problems.length || tooLong ? 'error' : undefined}
        data-testid="deid-import-text"
      />
      <div className="deid-import-summary" data-testid="deid-import-summary">
        {parsed.keywords.length ? <div>{t('import.preview', { count: parsed.keywords.length })}</div> : null}
        {parsed.repeated ? (
          <Typography.Text type="secondary">
            {t('import.repeated', { count: parsed.repeated })}
          </Typography.Text>
        ) : null}
      </div>
      {parsed.problems.length ? (
        <Alert
          type="error"
          showIcon
          title={t('import.problems')}
          description={
            <ul className="deid-import-problems" data-testid="deid-import-problems">
              {parsed.problems.slice(0, SHOWN).map((p) => (
                <li key={p.line}>
                  {t('import.line', {
                    line: p.line,
                    problem: t(`import.problem.${p.problem}`, { max: DEID_KEYWORD_MAX }),
                  })}
                </li>
              ))}
              {parsed.problems.length > SHOWN ? (
                <li>{t('import.more', { count: parsed.problems.length - SHOWN })}</li>
              ) : null}
            </ul>
          }
        />
      ) : null}
      {tooLong ? (
        <Alert
          type="error"
          showIcon
          title={t('common:textMax', { max: DEID_IMPORT_TEXT_MAX, count: text.length })}
          style={{ marginTop: 8 }}
        />
      ) : null}
      {error ? (
        <Alert type="error" showIcon title={error} style={{ marginTop: 8 }} data-testid="deid-import-error" />
      ) : null}
    </Modal>
  );
}
