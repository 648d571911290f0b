import enShared from '@esource/shared/i18n/en_US.json';
import zhShared from '@esource/shared/i18n/zh_CN.json';
import { i18n } from '../../i18n/i18n';

/**
 * The schema's messages ('validation.formName', 'validation.mergeLastRow', …) are translated once, in
 * packages/shared/src/i18n; the designer loads that section into its own namespace instead of copying it.
 */
export function loadSharedValidation(): void {
  i18n.addResourceBundle('en_US', 'designer', { validation: enShared.validation }, true, false);
  i18n.addResourceBundle('zh_CN', 'designer', { validation: zhShared.validation }, true, false);
}
