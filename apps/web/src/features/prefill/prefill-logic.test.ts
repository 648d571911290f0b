import { describe, expect, it } from 'vitest';
import { scheduleDayProblems, type PrefillCandidate } from '@esource/shared';
import {
  acceptAllNew,
  choicesFor,
  decisionInputs,
  displayValue,
  missingReasons,
  readableNumber,
  sourceOf,
  stateCounts,
} from './prefill-logic';
import { prettyRaw } from '../sources';

const cand = (variable: string, state: PrefillCandidate['state'], id = 1): PrefillCandidate => ({
  variable,
  label: variable,
  labelEn: null,
  type: 'number',
  unit: 'g/L',
  options: [],
  state,
  problem: state === 'problem' ? 'DATA_ABNORMAL' : null,
  problemMessage: null,
  problemDetail: null,
  candidateValue: state === 'problem' ? null : 120,
  currentValue: state === 'conflict' ? 130 : null,
  currentEntryMode: null,
  currentSourceRef: null,
  source: {
    id,
    version: 2,
    docType: 3,
    resourceType: 'Observation',
    codeSystem: 'http://loinc.org',
    code: '718-7',
    display: null,
    valueNum: 12,
    valueText: null,
    unit: 'g/dL',
    effectiveDate: '2026-01-01',
    effectiveAt: null,
  },
  conversion: null,
});

describe('pre-fill review', () => {
  const list = [cand('HGB', 'new', 1), cand('WBC', 'new', 2), cand('PLT', 'conflict', 3), cand('NA', 'same', 4), cand('K', 'problem', 5)];

  it('offers accept/ignore for new data, merge/ignore for a conflict, only ignore for a problem, nothing when the same', () => {
    expect(choicesFor(list[0]!)).toEqual(['new', 'ignore']);
    expect(choicesFor(list[2]!)).toEqual(['merge', 'ignore']);
    expect(choicesFor(list[4]!)).toEqual(['ignore']);
    expect(choicesFor(list[3]!)).toEqual([]);
  });

  it('accept all new decides only undecided new candidates, never a conflict', () => {
    const d = acceptAllNew(list, { WBC: { choice: 'ignore' } });
    expect(d).toEqual({ HGB: { choice: 'new' }, WBC: { choice: 'ignore' } });
  });

  it('a merge needs a reason before it is sent', () => {
    expect(missingReasons({ PLT: { choice: 'merge', reason: '  ' }, HGB: { choice: 'new' } })).toEqual(['PLT']);
    expect(missingReasons({ PLT: { choice: 'merge', reason: 'lab corrected' } })).toEqual([]);
  });

  it('sends each decision with the record version it saw, a reason only with a merge, nothing a candidate does not offer', () => {
    const inputs = decisionInputs(list, {
      HGB: { choice: 'new', reason: 'x' },
      PLT: { choice: 'merge', reason: ' corrected ' },
      NA: { choice: 'new' },
      K: { choice: 'new' },
    });
    expect(inputs).toEqual([
      { variable: 'HGB', sourceRecordId: 1, sourceVersion: 2, decision: 'new' },
      { variable: 'PLT', sourceRecordId: 3, sourceVersion: 2, decision: 'merge', reason: 'corrected' },
    ]);
  });

  it('counts candidates per state', () => {
    expect(stateCounts(list)).toEqual({ new: 2, conflict: 1, same: 1, problem: 1 });
  });

  it('shows option labels in the user’s language and — for nothing', () => {
    const options = [{ value: 'M', label: '男', labelEn: 'Male' }];
    expect(displayValue('M', options, 'en_US')).toBe('Male');
    expect(displayValue('M', options, 'zh_CN')).toBe('男');
    expect(displayValue(['M', 'X'], options, 'en_US')).toBe('Male, X');
    expect(displayValue(null)).toBe('—');
    expect(displayValue(0)).toBe('0');
  });

  it('finds the source record of a gathered or injected value only', () => {
    expect(sourceOf({ entryMode: 5, sourceRef: 'source:12:v3' })).toEqual({ recordId: 12, version: 3, mode: 5 });
    expect(sourceOf({ entryMode: 6, sourceRef: 'source:1:v1' })?.mode).toBe(6);
    // KBMS 4: read from a source document by the OCR association
    expect(sourceOf({ entryMode: 4, sourceRef: 'source:7:v2' })).toEqual({ recordId: 7, version: 2, mode: 4 });
    expect(sourceOf({ entryMode: 2, sourceRef: 'source:12:v3' })).toBeNull();
    expect(sourceOf({ entryMode: 5, sourceRef: null })).toBeNull();
    expect(sourceOf(undefined)).toBeNull();
  });

  it('indents JSON payloads and keeps HL7 segments on their own lines', () => {
    expect(prettyRaw('fhir', '{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyRaw('hl7v2', 'MSH|^~\\&\rPID|1')).toBe('MSH|^~\\&\nPID|1');
    expect(prettyRaw('sql', 'not json')).toBe('not json');
  });

  it('checks the schedule’s day choices like the server', () => {
    expect(scheduleDayProblems('daily', [])).toEqual([]);
    expect(scheduleDayProblems('weekly', [])).toEqual(['weekdays']);
    expect(scheduleDayProblems('weekly', [8])).toEqual(['weekdays']);
    expect(scheduleDayProblems('monthly', [31, 31])).toEqual(['duplicate']);
    expect(scheduleDayProblems('monthly', [1, 15])).toEqual([]);
  });
});

describe('readableNumber', () => {
  it('keeps six significant digits and whole numbers as they are', () => {
    expect(readableNumber(13.760201103478497)).toBe('13.7602');
    expect(readableNumber(190.49770729886075)).toBe('190.498');
    expect(readableNumber(250)).toBe('250');
    expect(readableNumber(null)).toBe('—');
  });
});
