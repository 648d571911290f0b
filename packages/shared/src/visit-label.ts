/**
 * The name of a visit in the reader's language: the English name when the language is en_US and the visit has
 * one, else the name. Every screen that shows a visit name goes through this.
 */
export function visitLabel(visit: { name: string; nameEn?: string | null | undefined }, language: string | undefined): string {
  return language === 'en_US' && visit.nameEn ? visit.nameEn : visit.name;
}
