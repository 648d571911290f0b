import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { ARTIFACTS, apiLogin, openLoggedIn, untranslatedKeys, visibleText, type ApiSession } from './helpers';

/**
 * Issue 4 §6: the data manager designs a form with every component type and a display condition (dragging
 * components), saves it, exports the JSON, imports it back under a new code with an identical definition,
 * and the preview (the eCRF renderer) shows the conditional field only when its condition holds.
 */

interface Envelope<T> {
  status: string;
  data: T;
  message?: string;
}

async function dragTo(page: Page, source: Locator, target: Locator, position: 'top' | 'center' = 'center') {
  const s = (await source.boundingBox())!;
  const t = (await target.boundingBox())!;
  await page.mouse.move(s.x + s.width / 2, s.y + s.height / 2);
  await page.mouse.down();
  await page.mouse.move(s.x + s.width / 2 + 12, s.y + s.height / 2 + 12, { steps: 4 });
  const y = position === 'top' ? t.y + 6 : t.y + t.height / 2;
  await page.mouse.move(t.x + t.width / 2, y, { steps: 12 });
  await page.mouse.move(t.x + t.width / 2, y + 1, { steps: 2 });
  await page.mouse.up();
}

const items = (page: Page) => page.getByTestId('canvas-item');

async function selectItem(page: Page, type: string) {
  await page.locator(`[data-testid="canvas-item"][data-type="${type}"] .fd-item-label`).first().click();
}

async function shoot(page: Page, name: string) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
}

test('designer: every component type, a display condition, drag and drop, save, export, import, preview', async ({ page, request }) => {
  test.setTimeout(180_000);
  const login = await apiLogin(request, 'dm', 1, 'main');
  const s: ApiSession = { ...login, user: { ...login.user, projectType: 'DEV' } };
  const headers = { token: s.token, proId: '1', proType: 'DEV' };
  const stamp = Date.now().toString(36).toUpperCase();
  const add = await request.post('/api/crf/version/add', { headers, form: { name: `E2E ${stamp}` } });
  const version = ((await add.json()) as Envelope<{ id: number }>).data;
  expect(version.id).toBeGreaterThan(0);

  await openLoggedIn(page, s, 'main', `/project/microCrfConfig?proId=1&versionId=${version.id}`, 'en_US');
  await expect(page.getByTestId('form-designer')).toBeVisible();
  await expect(page.getByTestId('designer-readonly')).toHaveCount(0);
  await shoot(page, 'designer-empty-en_US');

  // the form must not be saved empty: name, code and the component list are required
  await page.getByTestId('designer-save').click();
  await expect(page.getByTestId('designer-save-error')).toContainText('Please fill in the form name');
  await expect(page.getByTestId('designer-save-error')).toContainText('The component list cannot be empty');

  const code = `DJ${stamp}`;
  await page.getByTestId('form-name').fill('Designer journey');
  await page.getByTestId('form-code').fill(code);
  await page.getByTestId('form-nameEn').fill('Designer journey');
  await page.getByTestId('form-layout').getByText('Horizontal').click();
  await page.getByTestId('form-labelWidth').fill('140');
  await page.getByTestId('form-recordType').getByText('Scoring').click();
  await page.getByTestId('form-cycle').click();

  // drag the first component onto the canvas, click the others
  await dragTo(page, page.getByTestId('palette-radio'), page.getByTestId('designer-canvas'));
  await expect(items(page)).toHaveCount(1);
  for (const type of ['text', 'textarea', 'number', 'date', 'datetime', 'checkbox', 'select', 'table']) await page.getByTestId(`palette-${type}`).click();
  // and drag one between existing components: the file item lands before the text item
  await dragTo(page, page.getByTestId('palette-file'), items(page).nth(1), 'top');
  await expect(items(page)).toHaveCount(10);
  expect(await items(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual([
    'radio', 'file', 'text', 'textarea', 'number', 'date', 'datetime', 'checkbox', 'select', 'table',
  ]);

  // single choice SEX with options; a duplicate value is refused inline
  await selectItem(page, 'radio');
  await page.getByTestId('prop-label').fill('Sex');
  await page.getByTestId('prop-variable').fill('SEX');
  await page.getByTestId('opt-label-0').fill('Male');
  await page.getByTestId('opt-label-1').fill('Female');
  await page.getByTestId('opt-mapping-0').fill('M');
  await page.getByTestId('opt-mapping-1').fill('M');
  await expect(page.getByTestId('opt-error-1')).toContainText('duplicate option mapping');
  await page.getByTestId('opt-mapping-1').fill('F');
  await page.getByTestId('opt-value-1').fill('1');
  await expect(page.getByTestId('opt-error-1')).toContainText('duplicate option value');
  await page.getByTestId('opt-value-1').fill('2');
  await expect(page.getByTestId('opt-error-1')).toHaveCount(0);

  // the text item shows only for women; the expression is checked as it is typed
  await selectItem(page, 'text');
  await page.getByTestId('prop-label').fill('Pregnancy test');
  await page.getByTestId('prop-variable').fill('PREG');
  await page.getByRole('checkbox', { name: 'Required' }).check();
  await page.getByTestId('prop-condition').fill('SEX ==');
  await expect(page.getByTestId('condition-status')).toHaveAttribute('data-valid', 'false');
  await page.getByTestId('prop-condition').fill('SEX == "9" and NOPE');
  await expect(page.getByTestId('condition-status')).toHaveAttribute('data-valid', 'false');
  // saving now is refused locally and the problem shows on the component and its property
  await page.getByTestId('designer-save').click();
  await expect(page.getByTestId('designer-save-error')).toBeVisible();
  await expect(page.locator('[data-testid="canvas-item"][data-variable="PREG"] [data-testid="canvas-item-issues"]')).toContainText(
    'the display condition reads a variable that is not in this form',
  );
  await shoot(page, 'designer-problems-en_US');
  await page.getByTestId('prop-condition').fill('SEX == "2"');
  await expect(page.getByTestId('condition-status')).toHaveAttribute('data-valid', 'true');

  // number with unit and precision
  await selectItem(page, 'number');
  await page.getByTestId('prop-label').fill('Weight');
  await page.getByTestId('prop-variable').fill('WEIGHT');
  await page.getByTestId('prop-unit').fill('kg');
  await page.getByTestId('prop-precision').fill('1');

  // table: merge-right refused on the last column, merge-down accepted, a text and a field in cells
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-1"]').click();
  await page.getByTestId('merge-right').click();
  await expect(page.getByTestId('merge-error')).toHaveText('The last column cannot be merged right');
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-0"]').click();
  await page.getByTestId('table-rows').fill('3');
  await page.getByTestId('table-rows').press('Tab');
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-0"]').click();
  await page.getByTestId('merge-down').click();
  await expect(page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-0"]')).toHaveAttribute('rowspan', '2');
  await page.getByTestId('cell-kind').getByText('Text').click();
  await page.getByTestId('cell-text').fill('生命体征');
  // the English text beside the Chinese one; an English reader sees it (canvas, preview)
  await page.getByTestId('cell-textEn').fill('Vital signs');
  await expect(page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-0"]')).toHaveText('Vital signs');
  await shoot(page, 'designer-cell-text-en_US');
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-1"]').click();
  await page.getByTestId('cell-kind').getByText('Field').click();
  await page.getByTestId('prop-label').fill('Pulse');
  await page.getByTestId('prop-variable').fill('PULSE');
  await page.getByTestId('prop-unit').fill('bpm');
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-2-0"]').click();
  await page.getByTestId('merge-down').click();
  await expect(page.getByTestId('merge-error')).toHaveText('The last row cannot be merged down');
  await shoot(page, 'designer-table-merged-en_US');

  // duplicate and delete
  await page.getByTestId('canvas-duplicate-2').click();
  await expect(items(page)).toHaveCount(11);
  await page.getByTestId('canvas-delete-3').click();
  await expect(items(page)).toHaveCount(10);

  await page.getByTestId('designer-save').click();
  await expect(page).toHaveURL(/formId=\d+/);
  await expect(page.getByTestId('designer-dirty')).toHaveCount(0);
  const formId = Number(new URL(page.url()).searchParams.get('formId'));
  await selectItem(page, 'text');
  await shoot(page, 'designer-form-en_US');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);

  // export
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('designer-export').click()]);
  expect(download.suggestedFilename()).toBe(`${code}.form.json`);
  const exported = readFileSync((await download.path()), 'utf8');
  const file = JSON.parse(exported) as { kind: string; form: { code: string; components: { type: string }[] } };
  expect(file.kind).toBe('esource.form');
  expect(new Set(file.form.components.map((c) => c.type))).toEqual(
    new Set(['text', 'textarea', 'number', 'date', 'datetime', 'radio', 'checkbox', 'select', 'file', 'table']),
  );

  // a wrong file is refused with the reason
  await page.getByTestId('designer-import').click();
  const input = page.locator('.ant-modal input[type=file]');
  await input.setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"kind":"esource.form","schemaVersion":1,"form":{"name":""}}') });
  await expect(page.getByTestId('import-file-name')).toContainText('bad.json');
  await page.getByTestId('import-ok').click();
  await expect(page.getByTestId('import-error')).toContainText('Import failed, data format is not correct');

  // import the export back under a new code
  await input.setInputFiles({ name: `${code}.form.json`, mimeType: 'application/json', buffer: Buffer.from(exported) });
  await expect(page.getByTestId('import-code')).toHaveValue(code);
  await page.getByTestId('import-code').fill(`${code}B`);
  await page.getByTestId('import-ok').click();
  await expect(page).not.toHaveURL(new RegExp(`formId=${formId}(&|$)`));
  const importedId = Number(new URL(page.url()).searchParams.get('formId'));
  expect(importedId).toBeGreaterThan(formId);
  await expect(page.getByTestId('form-code')).toHaveValue(`${code}B`);

  const get = async (id: number) =>
    ((await (await request.get(`/api/crf/form/get?id=${id}`, { headers })).json()) as Envelope<{ definition: Record<string, unknown> }>).data.definition;
  const original = await get(formId);
  const imported = await get(importedId);
  expect({ ...imported, code }).toEqual(original);
  expect(original).toMatchObject({ layout: 'horizontal', labelWidth: 140, recordType: 'scoring', cycle: true });

  // preview: the very renderer data entry uses; the conditional item shows only when SEX == "2"
  await page.getByTestId('tab-preview').click();
  const preview = page.getByTestId('designer-preview');
  await expect(preview.getByTestId('crf-item-SEX')).toBeVisible();
  await expect(preview.getByTestId('crf-item-PREG')).toHaveCount(0);
  await preview.getByTestId('crf-item-SEX').getByText('Female', { exact: true }).click();
  await expect(preview.getByTestId('crf-item-PREG')).toBeVisible();
  await preview.getByTestId('crf-input-PREG').fill('negative');
  await preview.getByTestId('crf-input-WEIGHT').fill('70.26');
  await preview.getByTestId('crf-input-WEIGHT').blur();
  await expect(preview.getByTestId('preview-values')).toContainText('"WEIGHT": 70.3');
  await shoot(page, 'designer-preview-en_US');
  await preview.locator('table.crf-table').scrollIntoViewIfNeeded();
  await expect(preview.locator('table.crf-table td[rowspan="2"]')).toHaveText('Vital signs');
  await shoot(page, 'designer-preview-table-en_US');
  await preview.getByTestId('crf-item-SEX').getByText('Male', { exact: true }).click();
  await expect(preview.getByTestId('crf-item-PREG')).toHaveCount(0);
  await expect(preview.getByTestId('preview-values')).not.toContainText('PREG');
  await preview.getByTestId('preview-validate').click();
  await expect(preview.getByTestId('crf-item-PREG')).toHaveCount(0);

  // the same screens in Chinese
  await page.evaluate(() => localStorage.setItem('esource.language', JSON.stringify('zh_CN')));
  await page.goto(`/project/microCrfConfig?versionId=${version.id}&formId=${formId}`);
  await expect(page.getByTestId('designer-save')).toContainText('保存');
  await selectItem(page, 'text');
  await shoot(page, 'designer-form-zh_CN');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
  await page.locator('[data-testid="canvas-item"][data-type="table"] [data-testid="table-cell-0-0"]').click();
  await shoot(page, 'designer-table-merged-zh_CN');
  await page.getByTestId('props-tab-form').click();
  await page.getByTestId('form-layout').getByText('栅格').click();
  await page.getByTestId('tab-preview').click();
  await page.getByTestId('designer-preview').getByTestId('crf-item-SEX').getByText('Female', { exact: true }).click();
  await expect(page.getByTestId('designer-preview').locator('table.crf-table td[rowspan="2"]')).toHaveText('生命体征');
  await shoot(page, 'designer-preview-grid-zh_CN');
  await page.goto(`/project/microCrfConfig?versionId=${version.id}`);
  await expect(page.getByTestId('designer-canvas')).toBeVisible();
  await shoot(page, 'designer-empty-zh_CN');
  expect(untranslatedKeys(await visibleText(page))).toEqual([]);
});

test('designer: a published version opens read-only', async ({ page, request }) => {
  const login = await apiLogin(request, 'dm', 1, 'main');
  const s: ApiSession = { ...login, user: { ...login.user, projectType: 'DEV' } };
  const headers = { token: s.token, proId: '1', proType: 'DEV' };
  const versions = ((await (await request.post('/api/crf/version/list', { headers })).json()) as Envelope<{ id: number; status: number }[]>).data;
  const published = versions.find((v) => v.status !== 0)!;
  const forms = ((await (await request.get(`/api/crf/form/list?versionId=${published.id}`, { headers })).json()) as Envelope<{ id: number; code: string }[]>).data;
  const vs = forms.find((f) => f.code === 'VS') ?? forms[0]!;
  await openLoggedIn(page, s, 'main', `/project/microCrfConfig?proId=1&versionId=${published.id}&formId=${vs.id}`, 'en_US');
  await expect(page.getByTestId('designer-readonly')).toBeVisible();
  await expect(page.getByTestId('designer-save')).toHaveCount(0);
  await expect(page.getByTestId('designer-palette')).toHaveCount(0);
  await expect(page.getByTestId('form-name')).toBeDisabled();
  await expect(page.getByTestId('designer-export')).toBeEnabled();
  await page.getByTestId('tab-preview').click();
  await expect(page.locator('table.crf-table td[rowspan], table.crf-table td[colspan]').first()).toBeVisible();
  await shoot(page, 'designer-readonly-preview-en_US');
});

test('designer: a save over someone else’s newer save is refused with the server’s message', async ({ page, request }) => {
  const login = await apiLogin(request, 'dm', 1, 'main');
  const s: ApiSession = { ...login, user: { ...login.user, projectType: 'DEV' } };
  const headers = { token: s.token, proId: '1', proType: 'DEV' };
  const stamp = Date.now().toString(36).toUpperCase();
  const version = ((await (await request.post('/api/crf/version/add', { headers, form: { name: `E2E lock ${stamp}` } })).json()) as Envelope<{ id: number }>).data;
  const definition = { name: 'Lock test', code: `LK${stamp}`, components: [{ id: 'c1', type: 'text', label: 'Note', variable: 'NOTE' }] };
  const saved = ((await (await request.post('/api/crf/form/save', { headers, data: { versionId: version.id, definition } })).json()) as Envelope<{ id: number; lockVersion: number }>).data;
  await openLoggedIn(page, s, 'main', `/project/microCrfConfig?proId=1&versionId=${version.id}&formId=${saved.id}`, 'en_US');
  await expect(page.getByTestId('form-name')).toHaveValue('Lock test');
  // someone else saves meanwhile
  const other = await request.post('/api/crf/form/save', {
    headers,
    data: { versionId: version.id, id: saved.id, lockVersion: saved.lockVersion, definition: { ...definition, name: 'Changed elsewhere' } },
  });
  expect(((await other.json()) as Envelope<unknown>).status).toBe('1');
  await page.getByTestId('form-name').fill('My change');
  await page.getByTestId('designer-save').click();
  await expect(page.getByTestId('designer-save-error')).toContainText('please reload and try again');
  await expect(page.getByTestId('designer-dirty')).toBeVisible();
});
