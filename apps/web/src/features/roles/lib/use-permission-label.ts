import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { LabelOf } from './permission-tree';

/** Translated labels of the permission catalogue (roles:perm.*); an unknown key shows as itself. */
export function usePermissionLabel(): LabelOf {
  const { t, i18n } = useTranslation('roles');
  // i18n.language in the deps: labels change with the language
  return useCallback<LabelOf>(
    (kind, key, module) =>
      kind === 'resource'
        ? t(`perm.resource.${module}.${key}`, { defaultValue: key })
        : t(`perm.${kind}.${key}`, { defaultValue: key }),
    [t, i18n.language],
  );
}
