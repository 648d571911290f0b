import { describe, expect, it } from 'vitest';
import type { ConnectionView } from '@esource/shared';
import {
  compact,
  docTypeKey,
  formatValue,
  formToSave,
  groupByDate,
  hl7Segments,
  prettyRaw,
  roundedText,
  secretKind,
  taskStatusKey,
  viewToForm,
} from './source-logic';

const view: ConnectionView = {
  id: 7,
  siteId: 1,
  siteName: 'Demo City Hospital',
  kind: 'fhir',
  name: 'Demo FHIR',
  enabled: true,
  config: { baseUrl: 'http://127.0.0.1:8103/fhir/R4', auth: 'bearer', identifierSystems: [] },
  hasSecret: true,
  version: 3,
  lastTestAt: null,
  lastTestOk: null,
  createdBy: 'dm',
  createTime: '2025-01-01T00:00:00Z',
  updateTime: '2025-01-01T00:00:00Z',
};

describe('source records', () => {
  it('rounds stored numbers in change lists like other lists, leaving text alone', () => {
    expect(roundedText('13.760201103478497')).toBe('13.7602');
    expect(roundedText('-0.00004')).toBe('0');
    expect(roundedText('1e-7')).toBe('0');
    expect(roundedText('140')).toBe('140');
    expect(roundedText('positive')).toBe('positive');
    expect(roundedText('12-16')).toBe('12-16');
    expect(roundedText(null)).toBeNull();
  });

  it('names the 8 document types in spec order and nothing else', () => {
    expect(docTypeKey(1)).toBe('courseRecord');
    expect(docTypeKey(3)).toBe('test');
    expect(docTypeKey(8)).toBe('diagnosis');
    expect(docTypeKey(0)).toBeNull();
    expect(docTypeKey(9)).toBeNull();
  });
  it('reads a value with its unit, a text value as is, and nothing as a dash', () => {
    expect(formatValue({ valueNum: 7.2, valueText: null, unit: 'mmol/L' })).toBe('7.2 mmol/L');
    expect(formatValue({ valueNum: 0, valueText: null, unit: null })).toBe('0');
    expect(formatValue({ valueNum: 6.189225910820364, valueText: null, unit: '%' })).toBe('6.1892 %');
    expect(formatValue({ valueNum: 6.189225910820364, valueText: null, unit: '%' }, true)).toBe(
      '6.189225910820364 %',
    );
    expect(formatValue({ valueNum: null, valueText: 'positive', unit: 'mg' })).toBe('positive');
    expect(formatValue({ valueNum: null, valueText: null, unit: 'mg' })).toBe('—');
  });
  it('shows FHIR JSON indented, keeps text that is not JSON unchanged, and HL7 one segment per line', () => {
    expect(prettyRaw('fhir', '{"resourceType":"Observation","id":"1"}')).toBe(
      '{\n  "resourceType": "Observation",\n  "id": "1"\n}',
    );
    expect(prettyRaw('sql', 'not json')).toBe('not json');
    expect(hl7Segments('MSH|^~\\&|LIS\rPID|1||123\r\nOBX|1|NM|\n\n')).toEqual([
      'MSH|^~\\&|LIS',
      'PID|1||123',
      'OBX|1|NM|',
    ]);
    expect(prettyRaw('hl7v2', 'MSH|a\rOBX|b')).toBe('MSH|a\nOBX|b');
  });
  it('groups sorted records by day without reordering them', () => {
    const g = groupByDate([
      { id: 1, effectiveDate: '2024-05-02' },
      { id: 2, effectiveDate: '2024-05-02' },
      { id: 3, effectiveDate: '2024-05-01' },
      { id: 4, effectiveDate: null },
    ]);
    expect(g.map((x) => [x.date, x.rows.map((r) => r.id)])).toEqual([
      ['2024-05-02', [1, 2]],
      ['2024-05-01', [3]],
      [null, [4]],
    ]);
  });
  it('maps task status numbers', () => {
    expect(taskStatusKey(0)).toBe('queued');
    expect(taskStatusKey(3)).toBe('failed');
  });
});

describe('connection form', () => {
  it('asks for the secret of the kind and auth chosen', () => {
    expect(secretKind('fhir', 'none')).toBeNull();
    expect(secretKind('fhir', 'bearer')).toBe('token');
    expect(secretKind('fhir', 'smart')).toBe('privateKey');
    expect(secretKind('sql')).toBe('password');
    expect(secretKind('hl7v2')).toBeNull();
  });
  it('never puts a stored secret into the form, and keeps it when the field is left empty', () => {
    const form = viewToForm(view);
    expect(form).not.toHaveProperty('secret');
    const save = formToSave({ ...form, secret: '   ' }, view);
    expect(save).toMatchObject({ id: 7, version: 3, kind: 'fhir', name: 'Demo FHIR' });
    expect(save).not.toHaveProperty('secret');
    expect(save).not.toHaveProperty('clearSecret');
  });
  it('sends a typed secret, and clears the stored one when the auth no longer takes one', () => {
    expect(formToSave({ ...viewToForm(view), secret: 'tok-1' }, view).secret).toBe('tok-1');
    const none = formToSave(
      { ...viewToForm(view), config: { ...view.config, auth: 'none' }, secret: 'stale' },
      view,
    );
    expect(none).not.toHaveProperty('secret');
    expect(none.clearSecret).toBe(true);
  });
  it('drops empty optional fields so that the server defaults apply', () => {
    expect(
      compact({
        baseUrl: ' http://x ',
        scope: '',
        keyId: null,
        identifierSystems: [{ system: 's', type: 'idCard' }],
      }),
    ).toEqual({
      baseUrl: 'http://x',
      identifierSystems: [{ system: 's', type: 'idCard' }],
    });
  });
});
