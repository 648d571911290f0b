import { useTranslation } from 'react-i18next';
import { LegalLayout, useSections } from '../legal-layout';

/** User agreement (spec §2: /agreement). */
export default function AgreementPage() {
  const { t } = useTranslation('legal');
  return (
    <LegalLayout
      title={t('agreement.title')}
      intro={t('agreement.intro')}
      sections={useSections('agreement.sections')}
    />
  );
}
