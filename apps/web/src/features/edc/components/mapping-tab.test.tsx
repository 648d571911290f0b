import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { EdcConfigView, EdcMappingView, VersionRow } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { edcApi } from '../api/edc-api';
import { MappingTab } from './mapping-tab';

const CONFIG: EdcConfigView = {
  id: 1,
  kind: 1,
  name: 'Rave',
  baseUrl: 'http://127.0.0.1:1',
  studyOid: 'DEMO',
  targetEnv: 'Prod',
  timeoutMs: 30_000,
  schedule: null,
  enabled: true,
  hasSecret: true,
  targetItemsAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  updateTime: '2026-01-01T00:00:00.000Z',
};
const VERSION: VersionRow = {
  id: 7,
  versionNo: 1,
  name: 'V1.0',
  status: 1,
  publishedEnvs: ['PRO'],
  publishedAt: null,
  collecting: true,
  formCount: 2,
  visitCount: 1,
  createTime: '2026-01-01T00:00:00.000Z',
};
const VIEW: EdcMappingView = {
  versionId: 7,
  targetItemsAt: CONFIG.targetItemsAt,
  rows: [
    {
      level: 'event',
      localKey: 'V1',
      label: 'Screening',
      formCode: null,
      target: 'SE.V1',
      targetGroup: null,
      valueMap: null,
    },
    {
      level: 'form',
      localKey: 'DM',
      label: 'Demographics',
      formCode: null,
      target: 'F.DM',
      targetGroup: null,
      valueMap: null,
    },
    {
      level: 'item',
      localKey: 'DM.SEX',
      label: 'Sex',
      formCode: 'DM',
      options: [
        { value: '1', label: 'Male' },
        { value: '2', label: 'Female' },
      ],
      target: 'I.SEX',
      targetGroup: 'IG.DM',
      valueMap: { '1': 'M', '2': 'F' },
    },
    {
      level: 'item',
      localKey: 'DM.AGE',
      label: 'Age',
      formCode: 'DM',
      target: null,
      targetGroup: null,
      valueMap: null,
    },
    {
      level: 'form',
      localKey: 'VS',
      label: 'Vital signs',
      formCode: null,
      target: null,
      targetGroup: null,
      valueMap: null,
    },
  ],
  problems: [
    {
      level: 'form',
      localKey: 'DM',
      target: 'I.AGE',
      code: 'requiredUnmapped',
      message: "The EDC requires 'I.AGE' on form 'F.DM', but no item is mapped to it",
    },
  ],
};
const ITEMS = {
  fetchedAt: CONFIG.targetItemsAt,
  items: [
    {
      event: 'SE.V1',
      form: 'F.DM',
      group: 'IG.DM',
      item: 'I.SEX',
      dataType: 'text',
      required: true,
      codes: [
        { value: 'M', label: 'Male' },
        { value: 'F', label: 'Female' },
      ],
    },
    {
      event: 'SE.V1',
      form: 'F.DM',
      group: 'IG.DM',
      item: 'I.AGE',
      label: 'Age in years',
      dataType: 'integer',
      required: true,
    },
    { event: 'SE.V1', form: 'F.VS', group: 'IG.VS', item: 'I.SYSBP', dataType: 'integer', required: false },
  ],
};

beforeAll(() => {
  initI18n('en_US');
});
beforeEach(() => {
  vi.spyOn(edcApi, 'versions').mockResolvedValue([VERSION]);
  vi.spyOn(edcApi, 'mapping').mockResolvedValue(VIEW);
  vi.spyOn(edcApi, 'itemList').mockResolvedValue(ITEMS);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function renderTab() {
  const router = createMemoryRouter([
    {
      path: '/',
      element: <MappingTab scope={{ env: 'PRO', projectId: 1 }} config={CONFIG} onDirty={() => undefined} />,
    },
  ]);
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <RouterProvider router={router} />
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
}

async function pick(testId: string, text: string | RegExp) {
  const select = await screen.findByTestId(testId);
  fireEvent.mouseDown(select.querySelector('.ant-select-selector') ?? select);
  const options = await screen.findAllByText(text, { selector: '.ant-select-item-option-content' });
  fireEvent.click(options[options.length - 1]!);
}

describe('the EDC mapping editor', () => {
  it('shows the saved mapping’s problems and saves only the rows changed', async () => {
    const save = vi.spyOn(edcApi, 'saveMapping').mockImplementation(async () => ({
      ...VIEW,
      rows: VIEW.rows.map((r) =>
        r.localKey === 'DM.AGE' ? { ...r, target: 'I.AGE', targetGroup: 'IG.DM' } : r,
      ),
      problems: [],
    }));
    renderTab();
    const problems = await screen.findByTestId('edc-mapping-problems');
    expect(within(problems).getByText(/requires 'I.AGE'/)).toBeTruthy();
    const saveButton = screen.getByTestId<HTMLButtonElement>('edc-mapping-save');
    expect(saveButton.disabled).toBe(true);

    await pick('edc-map-item-DM.AGE', /^I\.AGE — Age in years/);
    await waitFor(() => expect(saveButton.disabled).toBe(false));
    expect(saveButton.textContent).toContain('Save 1 changes');
    expect(screen.getByTestId('edc-mapping-unsaved')).toBeTruthy();
    fireEvent.click(saveButton);
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save).toHaveBeenCalledWith(7, [
      { level: 'item', localKey: 'DM.AGE', target: 'I.AGE', targetGroup: 'IG.DM' },
    ]);
    await screen.findByTestId('edc-mapping-ready');
    await waitFor(() => expect(saveButton.disabled).toBe(true));
  });

  it('offers items of the mapped EDC form only, and a change undone is no change', async () => {
    renderTab();
    // VS is not mapped: its items wait for the form; DM's items offer F.DM's items only
    const age = await screen.findByTestId('edc-map-item-DM.AGE');
    fireEvent.mouseDown(age.querySelector('.ant-select-selector') ?? age);
    await screen.findAllByText(/^I\.AGE/, { selector: '.ant-select-item-option-content' });
    expect(screen.queryAllByText(/^I\.SYSBP/, { selector: '.ant-select-item-option-content' })).toHaveLength(
      0,
    );
    fireEvent.keyDown(age, { key: 'Escape' });

    await pick('edc-map-form-VS', 'F.VS');
    const saveButton = screen.getByTestId<HTMLButtonElement>('edc-mapping-save');
    await waitFor(() => expect(saveButton.disabled).toBe(false));
    // the form picked back to "none" (cleared): nothing to save
    const vs = screen.getByTestId('edc-map-form-VS');
    fireEvent.mouseDown(vs.querySelector('.ant-select-clear')!);
    fireEvent.click(vs.querySelector('.ant-select-clear')!);
    await waitFor(() => expect(saveButton.disabled).toBe(true));
  });

  it('edits the option codes of a choice item', async () => {
    const save = vi.spyOn(edcApi, 'saveMapping').mockResolvedValue(VIEW);
    renderTab();
    fireEvent.click(await screen.findByTestId('edc-codes-DM.SEX'));
    const editor = await screen.findByTestId('edc-codes-editor');
    expect(within(editor).getByText('Female')).toBeTruthy();
    await pick('edc-code-2', /^M — Male/);
    fireEvent.click(screen.getByTestId('edc-codes-apply'));
    const saveButton = screen.getByTestId<HTMLButtonElement>('edc-mapping-save');
    await waitFor(() => expect(saveButton.disabled).toBe(false));
    fireEvent.click(saveButton);
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save).toHaveBeenCalledWith(7, [
      {
        level: 'item',
        localKey: 'DM.SEX',
        target: 'I.SEX',
        targetGroup: 'IG.DM',
        valueMap: { '1': 'M', '2': 'M' },
      },
    ]);
  });
});
