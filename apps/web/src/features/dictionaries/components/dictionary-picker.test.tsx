import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp, Button, Form } from 'antd';
import { QueryClient, QueryClientProvider, queryOptions } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import type { DictionarySearchHit } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { ApiError } from '../../../lib/api-client';
import { sessionStore } from '../../session';

let reviewer = false;
const search = vi.fn<(route: string, kind: string, text: string) => Promise<DictionarySearchHit[]>>();

vi.mock('../../session', async (orig) => ({
  ...(await orig<object>()),
  usePms: () => (p: string) => reviewer && p === 'clinical:judge:query',
}));
vi.mock('../api/dictionaries-api', () => ({
  searchQuery: (route: string, kind: string, text: string) =>
    queryOptions({
      queryKey: ['dictionaries', 'search', route, kind, text],
      queryFn: () => search(route, kind, text),
      enabled: text.length > 0,
    }),
}));

const { DictionaryPicker } = await import('./dictionary-picker');

const I10: DictionarySearchHit = {
  id: 1,
  code: 'I10',
  termZh: '原发性高血压',
  termEn: 'Essential (primary) hypertension',
  match: 'pinyin',
  synonym: '高血压',
  dictionaryId: 1,
  version: 'demo-1',
};

beforeAll(() => {
  initI18n('en_US');
});
afterEach(() => {
  cleanup();
  search.mockReset();
  reviewer = false;
  sessionStore.set({ project: null });
});

function renderForm(onFinish = vi.fn(), initial: Record<string, unknown> = {}) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <Form onFinish={onFinish} initialValues={initial}>
            <Form.Item name="dx" label="Diagnosis">
              <DictionaryPicker kind="diagnosis" />
            </Form.Item>
            <Button htmlType="submit" data-testid="submit">
              OK
            </Button>
          </Form>
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
  return onFinish;
}

async function type(text: string) {
  const picker = screen.getByTestId('dictionary-picker-diagnosis');
  fireEvent.mouseDown(picker.querySelector('.ant-select-selector') ?? picker);
  const input = picker.querySelector('input')!;
  fireEvent.change(input, { target: { value: text } });
  // the search waits for the user to pause (250 ms)
  await act(() => new Promise((r) => setTimeout(r, 300)));
}

describe('DictionaryPicker', () => {
  it('searches as one types and gives the form { code, term } in the UI language, with the matched synonym shown', async () => {
    search.mockResolvedValue([I10]);
    const onFinish = renderForm();
    await type('gxy');
    await waitFor(() => expect(search).toHaveBeenCalledWith('system', 'diagnosis', 'gxy'));
    const option = await screen.findByTestId('dictionary-option-I10');
    expect(option.textContent).toContain('Essential (primary) hypertension');
    expect(option.textContent).toContain('原发性高血压');
    expect(option.textContent).toContain('synonym: 高血压');
    fireEvent.click(option);
    fireEvent.click(screen.getByTestId('submit'));
    await waitFor(() =>
      expect(onFinish).toHaveBeenCalledWith({
        dx: { code: 'I10', term: 'Essential (primary) hypertension' },
      }),
    );
    expect(screen.getByTestId('dictionary-picker-diagnosis').textContent).toContain(
      'I10 Essential (primary) hypertension',
    );
  });

  it('shows a value it was given, and clears to null', async () => {
    const onFinish = renderForm(vi.fn(), { dx: { code: 'D70.9', term: 'Neutropenia, unspecified' } });
    const picker = screen.getByTestId('dictionary-picker-diagnosis');
    expect(picker.textContent).toContain('D70.9 Neutropenia, unspecified');
    fireEvent.mouseDown(picker.querySelector('.ant-select-clear')!);
    fireEvent.click(picker.querySelector('.ant-select-clear')!);
    fireEvent.click(screen.getByTestId('submit'));
    await waitFor(() => expect(onFinish).toHaveBeenCalledWith({ dx: null }));
  });

  it('says when nothing matches and when the search failed', async () => {
    search.mockResolvedValueOnce([]);
    renderForm();
    await type('zzz');
    expect(await screen.findByText('No matching term')).toBeTruthy();
    search.mockRejectedValueOnce(new ApiError('No permission', 403, 'FORBIDDEN'));
    await type('qqq');
    expect(await screen.findByText('The dictionary could not be searched: No permission')).toBeTruthy();
  });

  it("a safety reviewer inside a project searches through the project's route", async () => {
    reviewer = true;
    sessionStore.set({ project: { id: 1, no: 'P', name: 'P' } as never, env: 'PRO' });
    search.mockResolvedValue([I10]);
    renderForm();
    await type('I1');
    await waitFor(() => expect(search).toHaveBeenCalledWith('project', 'diagnosis', 'I1'));
  });
});
