import type { IsfKindView, Language } from '@esource/shared';
import type { isfKinds } from '../../db/schema';

/** An ISF document kind as the API shows it: `label` in the caller's language (the Chinese name without an English one). */
export function kindView(lang: Language, k: typeof isfKinds.$inferSelect): IsfKindView {
  return {
    id: k.id,
    name: k.name,
    nameEn: k.nameEn,
    label: lang === 'en_US' && k.nameEn ? k.nameEn : k.name,
    required: k.required,
    siteIds: k.siteIds,
    sort: k.sort,
    version: k.version,
    updateTime: k.updatedAt.toISOString(),
  };
}
