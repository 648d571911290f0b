import { describe, expect, it } from 'vitest';
import { buildResources, NAMESPACES } from './i18n';

function keys(o: unknown, prefix = ''): string[] {
  if (Array.isArray(o)) return o.flatMap((x, i) => keys(x, `${prefix}[${i}]`));
  if (o && typeof o === 'object')
    return Object.entries(o).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
  return [prefix];
}

describe('web locales', () => {
  it('zh_CN and en_US have exactly the same keys in every namespace, none empty', () => {
    const res = buildResources(
      import.meta.glob<Record<string, unknown>>('../locales/*/*.json', { eager: true, import: 'default' }),
    );
    expect(Object.keys(res).sort()).toEqual(['en_US', 'zh_CN']);
    for (const ns of NAMESPACES) {
      const zh = res.zh_CN?.[ns];
      const en = res.en_US?.[ns];
      expect(zh, ns).toBeTruthy();
      expect(keys(en).sort(), ns).toEqual(keys(zh).sort());
      for (const lang of [zh, en]) {
        const flat = JSON.stringify(lang);
        expect(flat.includes('""'), `${ns} has an empty string`).toBe(false);
      }
    }
  });
});
