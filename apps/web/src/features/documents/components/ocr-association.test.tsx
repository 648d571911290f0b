import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import type { OcrAssociationResult, OcrProposal, SourceFileDetail } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { sessionStore } from '../../session';

const associate = vi.fn();
vi.mock('../api/ocr-association-api', () => ({
  ocrAssociationApi: { associate: (...a: unknown[]) => associate(...a) },
}));
vi.mock('../../../lib/api-client', async (orig) => {
  const real = await orig<{ api: Record<string, unknown> }>();
  // the subject's schedule (for the visit choice)
  const get = (path: string) =>
    Promise.resolve(
      path === '/project/pts/visits'
        ? [
            {
              visitId: 5,
              code: 'V1',
              name: '筛选期',
              nameEn: 'Screening',
              unscheduled: false,
              unscheduledId: 0,
              planned: '2026-01-01',
              start: '2026-01-01',
              end: '2026-01-01',
              state: 'done',
              forms: [],
            },
          ]
        : null,
    );
  return { ...real, api: { ...real.api, get } };
});

const { OcrAssociation } = await import('./ocr-association');

const region = { page: 1, x: 60, y: 210, width: 644, height: 31 };
const proposal = (over: Partial<OcrProposal> = {}): OcrProposal => ({
  recordId: 11,
  recordVersion: 1,
  formId: 3,
  formCode: 'LB',
  formName: '实验室检查',
  formNameEn: 'Laboratory tests',
  variable: 'HGB',
  label: '血红蛋白',
  labelEn: 'Hemoglobin',
  name: '血红蛋白 HGB',
  sourceValue: '13.2',
  sourceUnit: 'g/dL',
  range: '13.0-17.5',
  flag: 'H',
  value: 132,
  unit: 'g/L',
  conversion: { fromValue: 13.2, fromUnit: 'g/dL', toUnit: 'g/L' },
  problem: null,
  problemMessage: null,
  region,
  ...over,
});
const answer = (over: Partial<OcrAssociationResult> = {}): OcrAssociationResult => ({
  fileId: 7,
  ptsId: 2,
  reportDate: '2026-01-29',
  visit: { visitId: 9, code: 'V3', name: '第4周', nameEn: 'Week 4', planned: '2026-01-29' },
  effectiveDate: '2026-01-29',
  count: 2,
  created: 2,
  updated: 0,
  unchanged: 0,
  withdrawn: 0,
  proposals: [
    proposal(),
    proposal({
      recordId: 12,
      variable: 'GLUC',
      label: '血糖',
      labelEn: 'Glucose',
      value: null,
      problem: 'DATA_ABNORMAL',
      problemMessage: 'Data abnormal, cannot be filled',
      region: { ...region, y: 400 },
    }),
  ],
  unmatched: [{ name: '尿酸 UA', sourceValue: '420', sourceUnit: 'μmol/L', region: { ...region, y: 450 } }],
  ...over,
});
type SubjectFile = SourceFileDetail & { ptsId: number; ptsNo: string };
const file = { id: 7, ptsId: 2, ptsNo: '01-001', status: 1 } as SubjectFile;

beforeAll(() => {
  initI18n('en_US');
  sessionStore.set({
    project: { id: 1, no: 'P', name: 'P' } as never,
    env: 'PRO',
    language: 'en_US',
    loginType: 3,
  } as never);
});
afterEach(() => {
  cleanup();
  associate.mockReset();
});

function renderIt(onShow = vi.fn(), f: SubjectFile = file) {
  render(
    <MemoryRouter>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <I18nextProvider i18n={i18n}>
          <AntApp>
            <OcrAssociation file={f} shown={null} onShow={onShow} />
          </AntApp>
        </I18nextProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return onShow;
}

describe('OcrAssociation', { timeout: 60_000 }, () => {
  it('proposes, lists item, converted value, what was read and the visit linked to the form review; a row shows its region', async () => {
    associate.mockResolvedValue(answer());
    const onShow = renderIt();
    fireEvent.click(screen.getByTestId('assoc-run'));
    const table = await screen.findByTestId('assoc-proposals');
    expect(associate).toHaveBeenCalledWith(7, undefined);
    expect(table.textContent).toContain('Hemoglobin');
    expect(table.textContent).toContain('132 g/L');
    expect(table.textContent).toContain('13.2 g/dL');
    expect(table.textContent).toContain('High');
    expect(table.textContent).toContain('Cannot be filled');
    const link = screen.getByTestId('assoc-review-HGB');
    expect(link.getAttribute('href')).toBe(
      '/project/ptsDetail?ptsNo=01-001&ptsId=2&activeKey=pts360&visitId=9&formId=3',
    );
    expect(screen.getByTestId('assoc-visit').textContent).toContain('Week 4');
    fireEvent.click(screen.getByText('Hemoglobin'));
    expect(onShow).toHaveBeenCalledWith(region);
  });

  it('with no visit, asks for one and proposes again for the visit chosen', async () => {
    associate.mockResolvedValueOnce(answer({ visit: null, reportDate: null, effectiveDate: null }));
    renderIt();
    fireEvent.click(screen.getByTestId('assoc-run'));
    await screen.findByTestId('assoc-no-visit');
    expect(screen.queryByTestId('assoc-review-HGB')).toBeNull();
    const select = screen.getByTestId('assoc-visit-select');
    fireEvent.mouseDown(select.querySelector('.ant-select-selector') ?? select);
    fireEvent.click(await screen.findByText('Screening (2026-01-01)'));
    associate.mockResolvedValueOnce(answer());
    fireEvent.click(screen.getByTestId('assoc-run-visit'));
    await waitFor(() => expect(associate).toHaveBeenLastCalledWith(7, 5));
    await screen.findByTestId('assoc-review-HGB');
  });

  it('cannot run before automatic de-identification has finished', () => {
    renderIt(vi.fn(), { ...file, status: 0 });
    expect(screen.getByTestId<HTMLButtonElement>('assoc-run').disabled).toBe(true);
  });
});
