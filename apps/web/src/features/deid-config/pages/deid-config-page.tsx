import { Alert, Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { usePms } from '../../session';
import { KeywordTable } from '../components/keyword-table';
import { PolicyCard } from '../components/policy-card';
import { TryBox } from '../components/try-box';
import { ImageTryBox } from '../components/image-try-box';
import '../deid-config.css';

/**
 * /project/ocrProConfig, desensitization configuration (issue 12): the policy of what automatic de-identification
 * hides, the project's keywords, and a try-out on pasted text. Changing needs source:config:update (the data manager);
 * everyone who opens the page reads and tries.
 */
export default function DeidConfigPage() {
  const { t } = useTranslation('deidConfig');
  const has = usePms();
  const canEdit = has('source:config:update');
  return (
    <div className="deid-config-page" data-testid="deid-config-page">
      <Card size="small">
        <Typography.Paragraph type="secondary" style={{ marginBottom: canEdit ? 0 : undefined }}>
          {t('intro')}
        </Typography.Paragraph>
        {canEdit ? null : <Alert type="info" showIcon title={t('readOnly')} data-testid="deid-read-only" />}
      </Card>
      <PolicyCard canEdit={canEdit} />
      <KeywordTable canEdit={canEdit} />
      <TryBox />
      <ImageTryBox />
    </div>
  );
}
