import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { privacyVariant, productFor } from '../../brand';
import { LegalLayout, useSections } from '../legal-layout';

/** Privacy policy, one per product variant (spec §2 standalone routes). */
export default function PrivacyPage() {
  const { t } = useTranslation(['legal', 'common']);
  const variant = privacyVariant(useLocation().pathname);
  const product = t(`common:${productFor(variant, null).nameKey}`);
  const common = useSections('privacy.sections');
  const specific = useSections(`privacy.${variant}`);
  return (
    <LegalLayout
      title={t('legal:privacy.title', { product })}
      intro={t('legal:privacy.intro', { product })}
      sections={[...specific, ...common]}
    />
  );
}
