import { describe, expect, it } from 'vitest';
import type { FormDefinition, ScheduleVisit } from '@esource/shared';
import { findLogForm, logItems, placeFor, type DesignForm } from './log-form';

const field = (variable: string, type = 'text', options?: { value: string; label: string; mapping?: string }[], extra: Record<string, unknown> = {}) => ({ id: variable.toLowerCase(), type, label: variable, variable, ...(options ? { options } : {}), ...extra });
const form = (id: number, code: string, cycle: boolean, components: unknown[]): DesignForm => ({ id, code, definition: { kind: 'esource.form', name: code, code, cycle, components } as unknown as FormDefinition });

describe('the log form of a category', () => {
  const ae = form(1, 'AE', true, [field('AETERM')]);
  const cm = form(2, 'CONMED', true, [field('CMTRT')]);
  const dm = form(3, 'DM', false, [field('AETERM')]);
  it('is a cycle form found by its code, else by its CDASH key variable', () => {
    expect(findLogForm([dm, ae, cm], 'ae')?.id).toBe(1);
    expect(findLogForm([dm, ae, cm], 'cm')?.id).toBe(2);
    expect(findLogForm([dm, ae, cm], 'mh')).toBeNull();
    // a non-cycle form is never a log form
    expect(findLogForm([dm], 'ae')).toBeNull();
  });
  it('surgical history is its own form (HISS, SH …), not the procedures log', () => {
    const pr = form(4, 'PR', true, [field('PRTRT')]);
    const sh = form(5, 'SH', true, [field('PRTRT')]);
    expect(findLogForm([pr, sh], 'pr')?.id).toBe(4);
    expect(findLogForm([pr, sh], 'hiss')?.id).toBe(5);
  });
});

describe('the visit a record goes into', () => {
  const v = (visitId: number, start: string | null, end: string | null, forms: number[], unscheduled = false): ScheduleVisit => ({ visitId, unscheduledId: 0, code: `V${visitId}`, name: '', nameEn: null, unscheduled, planned: start, start, end, state: 'upcoming', forms: forms.map((formId) => ({ formId, code: '', name: '', nameEn: null, cycle: true, status: 0, instances: [] })) });
  const plan = [v(1, '2026-01-01', '2026-01-01', [9]), v(2, '2026-01-12', '2026-01-18', [1]), v(3, '2026-01-25', '2026-02-04', [1])];
  it('is the window holding the date, else the latest starting before it, else the first holding the form', () => {
    expect(placeFor(plan, 1, '2026-01-15')?.visitId).toBe(2);
    expect(placeFor(plan, 1, '2026-01-20')?.visitId).toBe(2);
    expect(placeFor(plan, 1, '2026-03-01')?.visitId).toBe(3);
    expect(placeFor(plan, 1, '2025-12-01')?.visitId).toBe(2);
    expect(placeFor(plan, 1, '2026-01')?.visitId).toBe(2);
    expect(placeFor(plan, 7, '2026-01-15')).toBeNull();
  });
});

describe('the items of a judgement', () => {
  const def = form(1, 'AE', true, [
    field('AETERM'),
    field('AESTDAT', 'date', undefined, { partialDate: true }),
    field('AETOXGR', 'select', [1, 2, 3, 4, 5].map((g) => ({ value: String(g), label: `G${g}`, mapping: String(g) }))),
    field('AESEV', 'select', [
      { value: 'a', label: 'Mild', mapping: 'MILD' },
      { value: 'b', label: 'Moderate', mapping: 'MODERATE' },
    ]),
    field('AESER', 'radio', [
      { value: '1', label: 'Yes', mapping: 'Y' },
      { value: '0', label: 'No', mapping: 'N' },
    ]),
    field('AEREL', 'radio', [{ value: 'x', label: 'Related' }]),
    field('AESHOSP', 'radio', [
      { value: 'Y', label: 'Yes' },
      { value: 'N', label: 'No' },
    ]),
  ]).definition;
  it('writes by CDISC variable, choosing options by mapping, then value, then label; lists what an option cannot take', () => {
    const r = logItems(def, 'ae', { term: 'Rash', onset: '2026-01', grade: 3, serious: true, criteria: ['AESHOSP'], relatedness: 'NOT RELATED', action: 'DOSE REDUCED', outcome: 'FATAL' });
    expect(Object.fromEntries(r.items.map((i) => [i.variable, i.value]))).toEqual({ AETERM: 'Rash', AESTDAT: '2026-01', AETOXGR: '3', AESER: '1', AESHOSP: 'Y' });
    // grade 3 is SEVERE, which this AESEV does not offer; 'NOT RELATED' is not an option of AEREL
    expect(r.skipped.sort()).toEqual(['AEREL', 'AESEV']);
  });
  it('leaves a partial date out of an item that needs a full one', () => {
    const full = form(1, 'AE', true, [field('AETERM'), field('AESTDTC', 'date')]).definition;
    expect(logItems(full, 'ae', { term: 'Rash', onset: '2026-01' }).skipped).toEqual(['AESTDTC']);
  });
});
