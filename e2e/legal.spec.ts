import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ARTIFACTS, noKeys } from './helpers';

/**
 * The privacy policies (one per product variant), the user agreement and the personal-information list (spec §2
 * standalone routes; issue 15 item 9): whole bilingual texts a compliance office can review, readable without
 * logging in, with the administrator's contact.
 */
async function openIn(page: Page, url: string, lang: 'en_US' | 'zh_CN'): Promise<void> {
  await page.addInitScript((l) => localStorage.setItem('esource.language', JSON.stringify(l)), lang);
  await page.goto(url);
  await expect(page.getByTestId('legal-page')).toBeVisible();
}

for (const lang of ['en_US', 'zh_CN'] as const) {
  test(`privacy policies, agreement and personal-information list read in ${lang}`, async ({ page }) => {
    const law = lang === 'en_US' ? 'Personal Information Protection Law' : '个人信息保护法';
    const rights = lang === 'en_US' ? 'Your rights' : '您的权利';
    const retention = lang === 'en_US' ? 'How long we keep it' : '保存期限';
    const scope: Record<string, RegExp> = {
      '/privacy': lang === 'en_US' ? /monitors \(CRAs\)/ : /监查员（CRA）/,
      '/site/privacy': lang === 'en_US' ? /HIS, LIS, EMR, PACS/ : /HIS、LIS、EMR、PACS/,
      '/ae/privacy': lang === 'en_US' ? /pharmacovigilance/ : /药物警戒/,
    };
    for (const [url, own] of Object.entries(scope)) {
      await openIn(page, url, lang);
      const main = page.locator('main');
      await expect(main).toContainText(law);
      await expect(main).toContainText(rights);
      await expect(main).toContainText(retention);
      await expect(main).toContainText('GDPR');
      await expect(main).toContainText(own);
      // each variant names only its own product's scope
      for (const [other, text] of Object.entries(scope))
        if (other !== url) await expect(main).not.toContainText(text);
      await expect(page.getByTestId('legal-contact')).toBeVisible();
      await expect(page.getByTestId('legal-draft-note')).toBeVisible();
      expect(await main.locator('h4').count()).toBeGreaterThanOrEqual(11);
      await noKeys(page);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, `legal-ae-privacy-${lang}.png`), fullPage: true });

    await openIn(page, '/agreement', lang);
    await expect(page.locator('main h4')).toHaveCount(7);
    await noKeys(page);

    await openIn(page, '/person', lang);
    const table = page.getByTestId('person-table');
    await expect(table.locator('tr.ant-table-row')).toHaveCount(7);
    await expect(table).toContainText(lang === 'en_US' ? 'Kept for' : '保存期限');
    await noKeys(page);
    await page.screenshot({ path: path.join(ARTIFACTS, `legal-person-${lang}.png`), fullPage: true });
  });
}

test('a phone-sized screen reads the policy without sideways scrolling of the text', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await openIn(page, '/site/privacy', 'zh_CN');
  const overflow = await page.evaluate(
    () => document.querySelector('main')!.scrollWidth - document.querySelector('main')!.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(1);
  await page.screenshot({ path: path.join(ARTIFACTS, 'legal-site-privacy-zh-390.png') });
  await ctx.close();
});
