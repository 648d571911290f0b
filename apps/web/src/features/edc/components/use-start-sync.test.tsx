import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp, Button } from 'antd';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import type { EdcRunView } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { ApiError } from '../../../lib/api-client';
import { edcApi } from '../api/edc-api';
import { useStartSync } from './use-start-sync';

beforeAll(() => {
  initI18n('en_US');
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function Starter({ onStarted }: { onStarted: (r: EdcRunView) => void }) {
  const start = useStartSync(onStarted);
  return (
    <Button onClick={() => start({ scope: 'site', siteId: 5 }, '01 Demo City Hospital')} data-testid="go">
      go
    </Button>
  );
}

function renderIt(onStarted = vi.fn()) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <Starter onStarted={onStarted} />
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
  return onStarted;
}

describe('starting a sync', () => {
  it('asks first, then hands over the queued run', async () => {
    const run: EdcRunView = {
      id: 3,
      scope: 'site',
      scopeId: 5,
      trigger: 'manual',
      status: 0,
      counts: null,
      error: null,
      startedByName: 'Dana',
      progressItemId: 9,
      createTime: '2026-01-01T00:00:00.000Z',
      finishTime: null,
    };
    const start = vi.spyOn(edcApi, 'start').mockResolvedValue(run);
    const onStarted = renderIt();
    fireEvent.click(screen.getByTestId('go'));
    expect(await screen.findByText(/site 01 Demo City Hospital/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('edc-sync-confirm'));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(run));
    expect(start).toHaveBeenCalledWith({ scope: 'site', siteId: 5 });
  });

  it('lists every problem when the server refuses the sync for its mapping', async () => {
    vi.spyOn(edcApi, 'start').mockRejectedValue(
      new ApiError('The EDC mapping has 2 problem(s)…', 409, 'EDC_MAPPING_INVALID', 'r1', [
        { field: 'form:DM', message: "The EDC requires 'I.AGE' on form 'F.DM', but no item is mapped to it" },
        { field: 'item:DM.SEX', message: "Option 'Other' (3) has no code at the EDC item 'I.SEX'" },
      ]),
    );
    const onStarted = renderIt();
    fireEvent.click(screen.getByTestId('go'));
    fireEvent.click(await screen.findByTestId('edc-sync-confirm'));
    await screen.findByTestId('edc-sync-refused');
    const items = await screen.findAllByTestId('edc-sync-problems-item');
    expect(items.map((i) => i.textContent)).toEqual([
      "The EDC requires 'I.AGE' on form 'F.DM', but no item is mapped to it",
      "Option 'Other' (3) has no code at the EDC item 'I.SEX'",
    ]);
    expect(onStarted).not.toHaveBeenCalled();
  });
});
