import type { TFunction } from 'i18next';

const HOUR_CHOICES = [1, 4, 8, 24, 48, 72, 168, 336, 720];

/** A validity as people say it: whole days in days, else hours. */
export function validityText(t: TFunction<'ddc'>, hours: number): string {
  return hours >= 24 && hours % 24 === 0 ? t('days', { count: hours / 24 }) : t('hours', { count: hours });
}

/** The validity choices within the project's longest, with its default among them. */
export function hourChoices(defaultHours: number, maxHours: number): number[] {
  return [...new Set([...HOUR_CHOICES.filter((h) => h <= maxHours), defaultHours])].sort((a, b) => a - b);
}
