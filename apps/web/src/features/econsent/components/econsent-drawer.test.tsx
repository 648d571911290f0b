import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import type { EcParticipantPage, EcParticipantRow } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { ApiError } from '../../../lib/api-client';

const post = vi.fn();
const postJson = vi.fn();
vi.mock('../../../lib/api-client', async (orig) => {
  const real = await orig<{ api: Record<string, unknown> }>();
  return {
    ...real,
    api: {
      ...real.api,
      post: (...a: unknown[]) => post(...a),
      postJson: (...a: unknown[]) => postJson(...a),
    },
  };
});

const { EconsentDrawer } = await import('./econsent-drawer');

const row = (over: Partial<EcParticipantRow>): EcParticipantRow => ({
  participantId: 'p1',
  screeningNo: 'S01-001',
  name: null,
  initials: 'ZS',
  sex: 'M',
  birthDate: '1960',
  consentDate: '2025-03-10',
  consentVersion: 'ICF V2.0',
  siteCode: '01',
  siteId: 5,
  siteName: 'Site A',
  status: 'consented',
  subject: null,
  refusal: null,
  ...over,
});
const page = (content: EcParticipantRow[]): EcParticipantPage => ({
  pageNumber: 1,
  pageSize: 50,
  totalCount: content.length,
  content,
  provider: { kind: 'dev', name: 'Ethics register' },
  identifiersMasked: true,
});

beforeAll(() => {
  initI18n('en_US');
});
afterEach(() => {
  cleanup();
  post.mockReset();
  postJson.mockReset();
});

function renderIt(onAdded = vi.fn(), canConfigure = true) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <I18nextProvider i18n={i18n}>
        <AntApp>
          <EconsentDrawer
            open
            onClose={() => undefined}
            scope={{ env: 'PRO', projectId: 1 }}
            sites={[{ id: 5, siteNo: '01', name: 'Site A' }]}
            canConfigure={canConfigure}
            renderSubject={(s) => <a href={`/s/${s.ptsId}`}>{s.ptsNo}</a>}
            onAdded={onAdded}
          />
        </AntApp>
      </I18nextProvider>
    </QueryClientProvider>,
  );
  return onAdded;
}

describe('EconsentDrawer', { timeout: 60_000 }, () => {
  it('lists participants: added ones with their subject, refused ones with the reason, only addable ones selectable; adds the chosen', async () => {
    post.mockResolvedValue(
      page([
        row({}),
        row({ participantId: 'p2', screeningNo: 'S01-002', subject: { ptsId: 9, ptsNo: '01-004' } }),
        row({
          participantId: 'p3',
          screeningNo: 'S01-005',
          status: 'pending',
          consentDate: null,
          refusal: 'no signed consent in the e-consent system',
        }),
      ]),
    );
    postJson.mockResolvedValue({
      added: [
        {
          participantId: 'p1',
          screeningNo: 'S01-001',
          ptsId: 10,
          ptsNo: '01-005',
          siteId: 5,
          consentDate: '2025-03-10',
        },
      ],
    });
    const onAdded = renderIt();
    await screen.findByTestId('ec-provider');
    const table = screen.getByTestId('ec-table');
    expect(post).toHaveBeenCalledWith(
      '/cloud/project/managePts/ec/participant/query',
      expect.objectContaining({ added: false, pageNumber: 1, pageSize: 50 }),
      { silent: true },
    );
    expect(screen.getByTestId('ec-provider').textContent).toContain('Ethics register');
    expect(screen.getByTestId('ec-subject-S01-002').textContent).toBe('01-004');
    expect(screen.getByTestId('ec-refusal-S01-005').textContent).toBe(
      'no signed consent in the e-consent system',
    );
    const boxes = within(table).getAllByRole('checkbox');
    // select-all, then one per row
    expect(boxes.slice(1).map((b) => (b as HTMLInputElement).disabled)).toEqual([false, true, true]);
    expect(screen.getByTestId('ec-add')).toHaveProperty('disabled', true);
    fireEvent.click(boxes[1]!);
    await waitFor(() => expect(screen.getByTestId('ec-add').textContent).toContain('Add 1 as a subject'));
    fireEvent.click(screen.getByTestId('ec-add'));
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(postJson).toHaveBeenCalledWith(
      '/cloud/project/managePts/add/pts',
      { participantIds: ['p1'] },
      { silent: true },
    );
  });

  it('shows the server refusal of an add in place', async () => {
    post.mockResolvedValue(page([row({})]));
    postJson.mockRejectedValue(
      new ApiError('Participant S01-001 has already been added as subject 01-003', 409, 'EC_ALREADY_ADDED'),
    );
    renderIt();
    await screen.findByTestId('ec-provider');
    const table = screen.getByTestId('ec-table');
    fireEvent.click(within(table).getAllByRole('checkbox')[1]!);
    fireEvent.click(screen.getByTestId('ec-add'));
    expect((await screen.findByTestId('ec-add-error')).textContent).toContain(
      'already been added as subject 01-003',
    );
  });

  it('without a connection: set it up (configurers) or ask for it; a system that is down is named', async () => {
    post.mockRejectedValue(new ApiError('No e-consent system is connected', 409, 'EC_NOT_CONFIGURED'));
    renderIt();
    expect(await screen.findByTestId('ec-setup')).toBeTruthy();
    cleanup();
    renderIt(vi.fn(), false);
    expect((await screen.findByTestId('ec-not-configured')).textContent).toContain('Ask the data manager');
    cleanup();
    post.mockRejectedValue(
      new ApiError(
        'The e-consent system could not be used: it answered HTTP 503',
        502,
        'EC_PROVIDER_UNAVAILABLE',
      ),
    );
    renderIt();
    expect((await screen.findByTestId('ec-load-error')).textContent).toContain('HTTP 503');
  });
});
