import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { QueryClient, QueryClientProvider, queryOptions } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import {
  DEFAULT_DEID_POLICY,
  type DeidKeywordPage,
  type DeidPolicyView,
  type DeidTestResult,
} from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { ApiError } from '../../../lib/api-client';
import { sessionStore } from '../../session';

let editor = true;
const savePolicy = vi.fn();
const test = vi.fn();
const policy: DeidPolicyView = {
  ...DEFAULT_DEID_POLICY,
  version: 1,
  updatedBy: 'Dana Manager',
  updateTime: '2026-01-02T03:04:00Z',
};
const page: DeidKeywordPage = {
  pageNumber: 1,
  pageSize: 50,
  totalCount: 1,
  total: 1,
  max: 2000,
  content: [
    { id: 1, keyword: 'Ward 7', note: null, createdBy: 'Dana Manager', createTime: '2026-01-02T03:04:00Z' },
  ],
};

vi.mock('../../session', async (orig) => ({ ...(await orig<object>()), usePms: () => () => editor }));
vi.mock('../api/deid-config-api', () => ({
  deidConfigKey: ['deidConfig'],
  keywordsQuery: () => queryOptions({ queryKey: ['deidConfig', 'k'], queryFn: () => Promise.resolve(page) }),
  policyQuery: () => queryOptions({ queryKey: ['deidConfig', 'p'], queryFn: () => Promise.resolve(policy) }),
  afterDeidConfigChange: () => Promise.resolve(),
  deidConfigApi: { savePolicy: (...a: unknown[]) => savePolicy(...a), test: (...a: unknown[]) => test(...a) },
}));

const { default: DeidConfigPage } = await import('./deid-config-page');

beforeAll(() => {
  initI18n('en_US');
  sessionStore.set({ project: { id: 1, no: 'P', name: 'P' } as never, env: 'PRO' });
});
afterEach(() => {
  cleanup();
  savePolicy.mockReset();
  test.mockReset();
});

function renderPage() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <DeidConfigPage />
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
}

describe('desensitization configuration page', () => {
  it('shows a read-only user the policy and keywords without any edit control', async () => {
    editor = false;
    renderPage();
    expect(await screen.findByTestId('deid-keyword-Ward 7')).toBeTruthy();
    expect(screen.getByTestId('deid-read-only')).toBeTruthy();
    expect(screen.queryByTestId('deid-keyword-add')).toBeNull();
    expect(screen.queryByTestId('deid-keyword-import')).toBeNull();
    expect(screen.queryByTestId('deid-keyword-delete-Ward 7')).toBeNull();
    expect(screen.queryByTestId('deid-policy-save')).toBeNull();
    expect(screen.getByTestId<HTMLButtonElement>('deid-policy-maskOtherDates').disabled).toBe(true);
    // the try-out is for every reader
    expect(screen.getByTestId('deid-test-run')).toBeTruthy();
  });

  it("saves a changed switch over the version read and says so when someone else's save came first", async () => {
    editor = true;
    renderPage();
    const sw = await screen.findByTestId('deid-policy-maskOtherDates');
    const save = screen.getByTestId<HTMLButtonElement>('deid-policy-save');
    expect(save.disabled).toBe(true);
    savePolicy.mockRejectedValue(
      new ApiError('Amy changed this data at 10:02; please reload and try again', 409, 'STALE_WRITE'),
    );
    fireEvent.click(sw);
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await waitFor(() =>
      expect(savePolicy).toHaveBeenCalledWith({ ...DEFAULT_DEID_POLICY, maskOtherDates: true }, 1),
    );
    const stale = await screen.findByTestId('deid-policy-stale');
    expect(stale.textContent).toContain('Amy changed this data at 10:02');
    expect(screen.getByTestId('deid-keyword-delete-Ward 7')).toBeTruthy();
  });

  it('highlights what the try-out would hide, with its kind', async () => {
    editor = true;
    const result: DeidTestResult = {
      text: 'Seen at Ward 7.',
      spans: [{ start: 8, end: 14, text: 'Ward 7', kind: 'keyword', reason: 'keyword.project' }],
      keywords: 1,
      policy: { ...DEFAULT_DEID_POLICY },
    };
    test.mockResolvedValue(result);
    renderPage();
    const box = await screen.findByTestId('deid-test');
    fireEvent.change(within(box).getByTestId('deid-test-text'), { target: { value: 'Seen at Ward 7.' } });
    fireEvent.click(within(box).getByTestId('deid-test-run'));
    const shown = await screen.findByTestId('deid-test-highlight');
    expect(test).toHaveBeenCalledWith('Seen at Ward 7.');
    expect(shown.textContent).toBe('Seen at Ward 7.');
    const mark = shown.querySelector('mark')!;
    expect(mark.textContent).toBe('Ward 7');
    expect(mark.getAttribute('data-kind')).toBe('keyword');
    expect(screen.getByTestId('deid-test-result').textContent).toContain('Desensitization keyword × 1');
  });
});
