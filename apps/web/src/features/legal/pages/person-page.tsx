import { useTranslation } from 'react-i18next';
import { LegalLayout, useSections } from '../legal-layout';

/** List of personal information collected (spec §2: /person). */
export default function PersonPage() {
  const { t } = useTranslation('legal');
  return (
    <LegalLayout
      title={t('person.title')}
      intro={t('person.intro')}
      sections={useSections('person.sections')}
    />
  );
}
