/**
 * The two EDC adapters against strict receivers (issue 14 item 3): kind 3 (REDCap API) against redcap-receiver,
 * kind 1 (ODM 1.3.2 over Rave Web Services) against rave-receiver. Real HTTP on local ports; no database.
 * Asserted on both sides: what the adapter reports, and what reached and stayed at the target.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { designToOdmMetadata, formItemGroups, validateOdm } from '@esource/interop';
import { designExportFile } from '@esource/shared';
import { indexMapping, mappingProblems, proposeMapping, recordItems, type MappingDesign } from '../src/modules/edc/edc-mapping';
import { EdcTransportError, type EdcExchange, type EdcRecord, type EdcRecordResult } from '../src/modules/edc/adapters/adapter';
import { OdmHttpAdapter } from '../src/modules/edc/adapters/odm-http';
import { parseRedcapErrorLines, RedcapAdapter } from '../src/modules/edc/adapters/redcap';
import type { RedcapField } from '../src/modules/edc/adapters/redcap-model';
import { startRaveReceiver, type RaveReceiver } from '../src/modules/edc/receivers/rave-receiver';
import { startRedcapReceiver, type RedcapReceiver } from '../src/modules/edc/receivers/redcap-receiver';

/** Every exchange any adapter call produced (also those carried by errors), to look for the secret in them. */
const seen: EdcExchange[] = [];
async function collect<T extends { exchanges: EdcExchange[] }>(p: Promise<T>): Promise<T> {
  try {
    const r = await p;
    seen.push(...r.exchanges);
    return r;
  } catch (err) {
    if (err instanceof EdcTransportError && err.exchange) seen.push(err.exchange);
    throw err;
  }
}
async function transportError(p: Promise<unknown>): Promise<EdcTransportError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EdcTransportError) {
      if (err.exchange) seen.push(err.exchange);
      return err;
    }
    throw err;
  }
  throw new Error('expected an EdcTransportError');
}

// ── kind 3: REDCap ──

const TOKEN = 'A1B2C3D4E5F60718293A4B5C6D7E8F90';
const field = (field_name: string, form_name: string, field_type: string, extra: Partial<RedcapField> = {}): RedcapField => ({ field_name, form_name, field_type, field_label: field_name, ...extra });
const REDCAP_STUDY = {
  title: 'eSource adapter test',
  metadata: [
    field('record_id', 'demographics', 'text', { field_label: 'Record ID' }),
    field('dob', 'demographics', 'text', { field_label: '<b>Date</b> of birth', text_validation_type_or_show_slider_number: 'date_ymd', required_field: 'y' }),
    field('sex', 'demographics', 'radio', { select_choices_or_calculations: '1, Male | 2, Female' }),
    field('email', 'demographics', 'text', { text_validation_type_or_show_slider_number: 'email' }),
    field('race', 'demographics', 'checkbox', { select_choices_or_calculations: '1, Asian | 2, White | 3, Other' }),
    field('vis_dt', 'vitals', 'text', { text_validation_type_or_show_slider_number: 'datetime_ymd' }),
    field('weight', 'vitals', 'text', { text_validation_type_or_show_slider_number: 'number' }),
    field('hr', 'vitals', 'text', { text_validation_type_or_show_slider_number: 'integer' }),
    field('smoker', 'vitals', 'yesno'),
    field('bmi', 'vitals', 'calc', { select_choices_or_calculations: '[weight]/4' }),
    field('ae_term', 'adverse_events', 'text'),
    field('ae_serious', 'adverse_events', 'yesno'),
  ],
  events: [
    { event_name: 'Screening', arm_num: 1, unique_event_name: 'screening_arm_1' },
    { event_name: 'Week 4', arm_num: 1, unique_event_name: 'week_4_arm_1' },
  ],
  formEventMapping: [
    { arm_num: 1, unique_event_name: 'screening_arm_1', form: 'demographics' },
    { arm_num: 1, unique_event_name: 'screening_arm_1', form: 'vitals' },
    { arm_num: 1, unique_event_name: 'week_4_arm_1', form: 'vitals' },
    { arm_num: 1, unique_event_name: 'week_4_arm_1', form: 'adverse_events' },
  ],
  repeating: [{ event_name: 'week_4_arm_1', form_name: 'adverse_events' }],
};

const rcRecords = (): EdcRecord[] => [
  {
    key: '101',
    event: 'screening_arm_1',
    form: 'demographics',
    items: [
      { item: 'dob', value: '1980-02-29' },
      { item: 'sex', value: '2' },
      { item: 'email', value: 'a.b@example.org' },
      { item: 'race', value: '1,3' },
    ],
  },
  {
    key: '102',
    event: 'screening_arm_1',
    form: 'vitals',
    items: [
      { item: 'vis_dt', value: '2025-03-01T09:30:00' },
      { item: 'weight', value: '71.5' },
      { item: 'hr', value: '64' },
      { item: 'smoker', value: '0' },
    ],
  },
  { key: '103', event: 'week_4_arm_1', form: 'vitals', items: [{ item: 'weight', value: '70.2' }, { item: 'hr', value: '70' }] },
  { key: '104', event: 'week_4_arm_1', form: 'adverse_events', formRepeat: 1, items: [{ item: 'ae_term', value: 'Headache' }, { item: 'ae_serious', value: '0' }] },
  { key: '105', event: 'week_4_arm_1', form: 'adverse_events', formRepeat: 2, items: [{ item: 'ae_term', value: 'Nausea' }, { item: 'ae_serious', value: '1' }] },
];
const asObject = (m: Map<string, Map<string, string | null>>) => Object.fromEntries([...m].map(([k, v]) => [k, Object.fromEntries(v)]));
const expected = (records: EdcRecord[]) => Object.fromEntries(records.map((r) => [r.key, Object.fromEntries(r.items.map((i) => [i.item, i.value]))]));
/** A record's result without the exchange that decided it (asserted on its own). */
const plain = (r: EdcRecordResult) => {
  const { exchange: _exchange, ...rest } = r;
  return rest;
};
/** What the target holds for records, as the engine hands it to send (`atTarget`). */
const atTarget = (m: Map<string, Map<string, string | null>>, records: EdcRecord[]): EdcRecord[] =>
  records.map((r) => ({ ...r, atTarget: m.has(r.key) ? Object.fromEntries(m.get(r.key)!) : null }));

describe('REDCap adapter (kind 3) against the strict REDCap receiver', () => {
  let rc: RedcapReceiver;
  const adapter = (secret = TOKEN, timeoutMs = 5000) => new RedcapAdapter({ kind: 3, baseUrl: rc.url, secret, timeoutMs });
  const a3 = () => adapter();
  beforeAll(async () => {
    rc = await startRedcapReceiver({ study: REDCAP_STUDY, token: TOKEN });
  });
  afterAll(async () => rc.close());
  beforeEach(() => {
    rc.setFault(null);
    rc.refusals.length = 0;
  });

  it('lists the items per event from metadata, events and the form–event mapping', async () => {
    const items = await adapter().itemList();
    const dob = items.find((i) => i.item === 'dob');
    expect(dob).toEqual({ event: 'screening_arm_1', form: 'demographics', item: 'dob', label: 'Date of birth', dataType: 'text:date_ymd', required: true, repeating: false });
    expect(items.find((i) => i.item === 'sex')?.codes).toEqual([
      { value: '1', label: 'Male' },
      { value: '2', label: 'Female' },
    ]);
    expect(items.find((i) => i.item === 'smoker')?.codes?.map((c) => c.value)).toEqual(['1', '0']);
    expect(items.filter((i) => i.item === 'weight').map((i) => i.event)).toEqual(['screening_arm_1', 'week_4_arm_1']);
    expect(items.find((i) => i.item === 'ae_term')).toMatchObject({ event: 'week_4_arm_1', repeating: true });
    // the record ID field and calculated fields take no import
    expect(items.some((i) => i.item === 'record_id' || i.item === 'bmi')).toBe(false);
    expect(items).toHaveLength(3 + 1 + 4 * 2 + 2);
  });

  it('sends a subject in one import and reads the same values back', async () => {
    const a = adapter();
    const imports = rc.imports;
    const out = await collect(a.send('S-001', '01', rcRecords()));
    expect(out.results.map(plain)).toEqual(rcRecords().map((r) => ({ key: r.key, ok: true })));
    expect(rc.imports).toBe(imports + 1);
    const importReq = rc.requests.filter((r) => r.write).at(-1)!;
    const params = new URLSearchParams(importReq.body);
    expect(params.get('token')).toBe('***');
    expect(params.get('overwriteBehavior')).toBe('normal');
    const rows = JSON.parse(params.get('data')!) as Record<string, string>[];
    // one row per record × event × instance; the two screening forms share a row
    expect(rows.map((r) => [r.redcap_event_name, r.redcap_repeat_instrument ?? '', r.redcap_repeat_instance ?? ''])).toEqual([
      ['screening_arm_1', '', ''],
      ['week_4_arm_1', '', ''],
      ['week_4_arm_1', 'adverse_events', '1'],
      ['week_4_arm_1', 'adverse_events', '2'],
    ]);
    expect(rows[0]).toMatchObject({ record_id: 'S-001', race___1: '1', race___2: '0', race___3: '1', vis_dt: '2025-03-01 09:30' });
    // at the target
    expect(rc.value('S-001', { event: 'screening_arm_1' }, 'race___3')).toBe('1');
    expect(rc.value('S-001', { event: 'week_4_arm_1', instrument: 'adverse_events', instance: 2 }, 'ae_term')).toBe('Nausea');
    expect(rc.value('S-001', { event: 'screening_arm_1' }, 'demographics_complete')).toBe('0');
    // and back, in our terms (checkbox codes joined, datetime canonical)
    const cur = await collect(a.current('S-001', '01', rcRecords()));
    expect(asObject(cur.values)).toEqual(expected(rcRecords()));
    // a record the target does not have is absent
    const none = await collect(a.current('S-404', '01', rcRecords()));
    expect(none.values.size).toBe(0);
  });

  it('is idempotent: the same records again change nothing at the target; a cleared value stays cleared', async () => {
    const a = adapter();
    await collect(a.send('S-002', '01', rcRecords()));
    const before = rc.snapshot();
    const changes = rc.changes;
    const again = await collect(a.send('S-002', '01', rcRecords()));
    expect(again.results.every((r) => r.ok)).toBe(true);
    expect(rc.changes).toBe(changes);
    expect(rc.snapshot()).toBe(before);

    const cleared: EdcRecord = { key: '103', event: 'week_4_arm_1', form: 'vitals', items: [{ item: 'weight', value: null }, { item: 'hr', value: '70' }] };
    expect((await collect(a.send('S-002', '01', [cleared]))).results.map(plain)).toEqual([{ key: '103', ok: true }]);
    expect(new URLSearchParams(rc.requests.filter((r) => r.write).at(-1)!.body).get('overwriteBehavior')).toBe('overwrite');
    expect(rc.value('S-002', { event: 'week_4_arm_1' }, 'weight')).toBeNull();
    // the receiver records the removal it applied
    expect(rc.removals.at(-1)).toEqual({ call: 'import', record: 'S-002', event: 'week_4_arm_1', instrument: '', instance: '', columns: ['weight'] });
    expect(rc.changes).toBe(changes + 1);
    await collect(a.send('S-002', '01', [cleared]));
    expect(rc.changes).toBe(changes + 1);
    expect(asObject((await collect(a.current('S-002', '01', [cleared]))).values)).toEqual({ '103': { weight: null, hr: '70' } });
  });

  it("refuses a record with REDCap's reason while the subject's other records are accepted", async () => {
    const a = adapter();
    const recs = rcRecords();
    recs[1]!.items[1] = { item: 'weight', value: 'heavy' };
    recs[2]!.items[1] = { item: 'hr', value: '70.5' };
    rc.refusals.push({ item: 'ae_term', subject: 'S-003', reason: 'Terms must be coded first' });
    const writes = rc.requests.filter((r) => r.write).length;
    const out = await collect(a.send('S-003', '01', recs));
    const full = Object.fromEntries(out.results.map((r) => [r.key, r]));
    const byKey = Object.fromEntries(out.results.map((r) => [r.key, plain(r)]));
    expect(byKey['101']).toEqual({ key: '101', ok: true });
    // each error line names record, field and value; the value tells which of the records sending the field it was
    expect(byKey['102']).toEqual({ key: '102', ok: false, reason: 'weight = "heavy": The value you provided could not be validated because it does not follow the expected format. Please try again.' });
    expect(byKey['103']).toMatchObject({ ok: false, reason: expect.stringMatching(/^hr = "70\.5": The value you provided could not be validated/) });
    expect(byKey['104']).toEqual({ key: '104', ok: false, reason: 'ae_term = "Headache": Terms must be coded first' });
    expect(byKey['105']).toEqual({ key: '105', ok: false, reason: 'ae_term = "Nausea": Terms must be coded first' });
    // one refused import with every line, then one accepted import of the rest
    const sent = rc.requests.filter((r) => r.write).slice(writes);
    expect(sent.map((r) => r.status)).toEqual([400, 200]);
    const refusal = JSON.parse(out.exchanges.find((e) => e.httpStatus === 400)!.response!) as { error: string };
    expect(refusal.error.split('\n')).toHaveLength(4);
    expect(refusal.error).toContain('"S-003","weight","heavy","The value you provided could not be validated');
    expect(rc.value('S-003', { event: 'screening_arm_1' }, 'dob')).toBe('1980-02-29');
    expect(rc.value('S-003', { event: 'screening_arm_1' }, 'weight')).toBeNull();
    expect(rc.value('S-003', { event: 'week_4_arm_1', instrument: 'adverse_events', instance: 2 }, 'ae_term')).toBeNull();
    // each record's result carries its own exchange: its row of the refused call and REDCap's lines about it, not
    // the batch's last exchange (the accepted import)
    const own = full['102']!.exchange!;
    expect(own.httpStatus).toBe(400);
    expect(own.request).toContain('"weight":"heavy"');
    expect(own.request).toContain('token=***');
    expect(own.request).not.toContain('Headache');
    expect(own.response).toBe('"S-003","weight","heavy","The value you provided could not be validated because it does not follow the expected format. Please try again."');
    expect(full['105']!.exchange!.response).toBe('"S-003","ae_term","Nausea","Terms must be coded first"');
    expect(full['105']!.exchange!.request).toContain('"redcap_repeat_instance":"2"');
    expect(full['101']!.exchange).toMatchObject({ httpStatus: 200, response: '{"count":1}' });
    expect(full['101']!.exchange!.request).toContain('"dob":"1980-02-29"');
    expect(full['101']!.exchange!.request).not.toContain('weight');
  });

  it('maps whole-call refusals (unknown field, unknown event) and a refused subject', async () => {
    const a = adapter();
    const out = await collect(
      a.send('S-004', '01', [
        { key: 'a', event: 'screening_arm_1', form: 'vitals', items: [{ item: 'weight', value: '80' }] },
        { key: 'b', event: 'screening_arm_1', form: 'labs', items: [{ item: 'alt', value: '31' }] },
        { key: 'c', event: 'week_99_arm_1', form: 'vitals', items: [{ item: 'hr', value: '60' }] },
      ]),
    );
    expect(out.results.map(plain)).toEqual([
      { key: 'a', ok: true },
      { key: 'b', ok: false, reason: 'The following fields were not found in the project as real data fields: alt' },
      { key: 'c', ok: false, reason: 'The following values of redcap_event_name are invalid: week_99_arm_1' },
    ]);
    rc.refusals.push({ subject: 'S-005', reason: 'Record is locked' });
    const locked = await collect(a.send('S-005', '01', rcRecords().slice(0, 2)));
    expect(locked.results.map(plain)).toEqual([
      { key: '101', ok: false, reason: 'record_id = "S-005": Record is locked' },
      { key: '102', ok: false, reason: 'record_id = "S-005": Record is locked' },
    ]);
  });

  it('reports a timeout as EdcTransportError timeout and leaves nothing half-applied; a retry then succeeds once', async () => {
    const a = adapter(TOKEN, 400);
    await a.itemList(); // the project definition is read before the fault
    rc.setFault({ mode: 'timeout', on: 'write' });
    const before = rc.snapshot();
    const err = await transportError(collect(a.send('S-006', '01', rcRecords())));
    expect(err.kind).toBe('timeout');
    expect(rc.snapshot()).toBe(before);
    rc.setFault(null);
    const changes = rc.changes;
    const b = adapter();
    expect((await collect(b.send('S-006', '01', rcRecords()))).results.every((r) => r.ok)).toBe(true);
    const applied = rc.changes - changes;
    expect(applied).toBeGreaterThan(0);
    await collect(b.send('S-006', '01', rcRecords()));
    expect(rc.changes - changes).toBe(applied);
  });

  it('reports HTTP 500 as http and a refused token as auth', async () => {
    rc.setFault({ mode: 'http500' });
    expect((await transportError(adapter().test())).kind).toBe('http');
    rc.setFault(null);
    expect((await transportError(adapter('0123456789ABCDEF0123456789ABCDEF').test())).kind).toBe('auth');
    expect((await transportError(adapter('').itemList())).kind).toBe('auth');
    rc.setFault({ mode: 'auth', afterRequests: 0, on: 'any' });
    expect((await transportError(adapter().send('S-007', '01', rcRecords()))).kind).toBe('auth');
    rc.setFault(null);
    expect((await adapter().test()).httpStatus).toBe(200);
  });

  it('reads a value changed at the target by a person (what the engine reports as a conflict)', async () => {
    const a = adapter();
    await collect(a.send('S-008', '01', rcRecords()));
    rc.setValue('S-008', { event: 'week_4_arm_1' }, 'weight', '75');
    const cur = await collect(a.current('S-008', '01', rcRecords()));
    expect(cur.values.get('103')?.get('weight')).toBe('75');
  });

  it('removes a deleted form instance with an instrument-level delete, once; the rest of the record stays', async () => {
    const a = adapter();
    await collect(a.send('S-010', '01', rcRecords()));
    const all = rcRecords();
    // the second adverse event (a repeating instrument) and the screening vitals (sharing a row with demographics)
    const gone = [{ ...all[4]!, remove: 'form' as const }, { ...all[1]!, remove: 'form' as const }];
    const cur = await collect(a.current('S-010', '01', gone));
    const writes = rc.requests.filter((r) => r.write).length;
    const out = await collect(a.send('S-010', '01', atTarget(cur.values, gone)));
    expect(out.results.map(plain)).toEqual([
      { key: '105', ok: true },
      { key: '102', ok: true },
    ]);
    const deletes = rc.requests.filter((r) => r.write).slice(writes).map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    // event (one arm: no arm parameter), instrument and instance: REDCap deletes that instance's data only
    expect(deletes).toEqual([
      { token: '***', content: 'record', action: 'delete', 'records[0]': 'S-010', event: 'week_4_arm_1', instrument: 'adverse_events', repeat_instance: '2', returnFormat: 'json' },
      { token: '***', content: 'record', action: 'delete', 'records[0]': 'S-010', event: 'screening_arm_1', instrument: 'vitals', returnFormat: 'json' },
    ]);
    expect(out.results[0]!.exchange).toMatchObject({ httpStatus: 200, response: '1' });
    expect(rc.removals.slice(-2)).toEqual([
      { call: 'delete', record: 'S-010', event: 'week_4_arm_1', instrument: 'adverse_events', instance: '2', columns: ['ae_term', 'ae_serious', 'adverse_events_complete'] },
      { call: 'delete', record: 'S-010', event: 'screening_arm_1', instrument: '', instance: '', columns: ['vis_dt', 'weight', 'hr', 'smoker', 'vitals_complete'] },
    ]);
    expect(rc.value('S-010', { event: 'week_4_arm_1', instrument: 'adverse_events', instance: 2 }, 'ae_term')).toBeNull();
    expect(rc.value('S-010', { event: 'week_4_arm_1', instrument: 'adverse_events', instance: 1 }, 'ae_term')).toBe('Headache');
    expect(rc.value('S-010', { event: 'screening_arm_1' }, 'dob')).toBe('1980-02-29');
    expect(rc.value('S-010', { event: 'screening_arm_1' }, 'weight')).toBeNull();
    // sent once: read again, the target holds nothing of them, so nothing is sent
    const after = await collect(a.current('S-010', '01', gone));
    expect(after.values.size).toBe(0);
    const calls = rc.requests.length;
    const again = await collect(a.send('S-010', '01', atTarget(after.values, gone)));
    expect(again.results.map(plain)).toEqual([
      { key: '105', ok: true, noop: true },
      { key: '102', ok: true, noop: true },
    ]);
    expect(rc.requests.length).toBe(calls);
  });

  it('a refused delete is the record\'s refusal with REDCap\'s reason; the receiver enforces the delete contract', async () => {
    const a = adapter();
    const gone: EdcRecord = { ...rcRecords()[3]!, remove: 'form' };
    // (atTarget not read: the delete is sent as it is, and REDCap knows no such record)
    const out = await collect(a.send('S-404', '01', [gone]));
    expect(plain(out.results[0]!)).toEqual({
      key: '104',
      ok: false,
      reason: 'One or more of the records provided cannot be deleted because they do not exist in the project. The following records do not exist: S-404',
    });
    await collect(a.send('S-011', '01', rcRecords().slice(0, 1)));
    const del = async (extra: Record<string, string>) => {
      const r = await fetch(rc.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: TOKEN, content: 'record', action: 'delete', 'records[0]': 'S-011', ...extra }) });
      return [r.status, await r.text()] as const;
    };
    const before = rc.snapshot();
    // an instrument without its event would delete more than asked: refused (REDCap documents event as mandatory)
    expect((await del({ instrument: 'demographics' }))[0]).toBe(400);
    expect((await del({ instrument: 'demographics', event: 'screening_arm_1', repeat_instance: '1' }))[1]).toContain('repeat_instance');
    expect((await del({ instrument: 'labs', event: 'screening_arm_1' }))[1]).toContain('instrument');
    expect((await del({ instrument: 'adverse_events', event: 'screening_arm_1' }))[1]).toContain('not designated');
    expect((await del({ arm: '1' }))[1]).toContain('arm');
    expect(rc.snapshot()).toBe(before);
    // the whole record, when nothing narrows it
    expect(await del({})).toEqual([200, '1']);
    expect(rc.snapshot()).not.toContain('S-011');
  });

  it('on a REDCap before the documented instrument-level delete, clears the form\'s fields instead (never a delete)', async () => {
    const old = await startRedcapReceiver({ study: REDCAP_STUDY, token: TOKEN, version: '13.7.2' });
    try {
      const a = new RedcapAdapter({ kind: 3, baseUrl: old.url, secret: TOKEN });
      await collect(a.send('S-012', '01', rcRecords()));
      const gone = [{ ...rcRecords()[4]!, remove: 'form' as const }];
      const cur = await collect(a.current('S-012', '01', gone));
      expect((await collect(a.send('S-012', '01', atTarget(cur.values, gone)))).results.map(plain)).toEqual([{ key: '105', ok: true }]);
      expect(old.deletes).toBe(0);
      const last = new URLSearchParams(old.requests.filter((r) => r.write).at(-1)!.body);
      expect([last.get('action'), last.get('overwriteBehavior')]).toEqual(['import', 'overwrite']);
      expect(old.removals).toEqual([{ call: 'import', record: 'S-012', event: 'week_4_arm_1', instrument: 'adverse_events', instance: '2', columns: ['ae_term', 'ae_serious'] }]);
      expect(old.value('S-012', { event: 'week_4_arm_1', instrument: 'adverse_events', instance: 1 }, 'ae_term')).toBe('Headache');
    } finally {
      await old.close();
    }
  });

  it('falls back to one record per import when a refusal names no record it sent', async () => {
    // no record ID at all: REDCap refuses the call with a sentence that names no field of ours
    const out = await collect(a3().send('', '01', rcRecords().slice(0, 2)));
    expect(out.results.map((r) => [r.key, r.ok])).toEqual([
      ['101', false],
      ['102', false],
    ]);
    expect(out.results[0]!.reason).toMatch(/record ID field \(record_id\)/);
    expect(out.exchanges.filter((e) => e.httpStatus === 400)).toHaveLength(3);
  });

  it('delays the answer after N requests when told to', async () => {
    const a = adapter();
    await a.itemList();
    rc.setFault({ mode: 'delay', delayMs: 300, afterRequests: 1, on: 'read' });
    const fast = await collect(a.current('S-001', '01', rcRecords()));
    const slow = await collect(a.current('S-001', '01', rcRecords()));
    expect(fast.exchanges[0]!.ms).toBeLessThan(300);
    expect(slow.exchanges[0]!.ms).toBeGreaterThanOrEqual(290);
    expect(asObject(slow.values)).toEqual(asObject(fast.values));
  });

  it('works with a classic project (no events; a repeating instrument)', async () => {
    const classic = await startRedcapReceiver({
      token: TOKEN,
      study: { metadata: REDCAP_STUDY.metadata.filter((f) => f.form_name !== 'vitals'), repeating: [{ form_name: 'adverse_events' }] },
    });
    try {
      const a = new RedcapAdapter({ kind: 3, baseUrl: classic.url, secret: TOKEN });
      const items = await a.itemList();
      expect(items.every((i) => i.event === undefined)).toBe(true);
      expect(items.find((i) => i.item === 'ae_term')?.repeating).toBe(true);
      expect(classic.requests.map((r) => new URLSearchParams(r.body).get('content'))).toEqual(['project', 'metadata', 'repeatingFormsEvents']);
      const recs: EdcRecord[] = [
        { key: 'd', event: 'ignored', form: 'demographics', items: [{ item: 'sex', value: '1' }] },
        { key: 'e', form: 'adverse_events', formRepeat: 3, items: [{ item: 'ae_term', value: 'Rash' }] },
      ];
      expect((await collect(a.send('C-1', '01', recs))).results.every((r) => r.ok)).toBe(true);
      expect(classic.value('C-1', { instrument: 'adverse_events', instance: 3 }, 'ae_term')).toBe('Rash');
      expect(asObject((await collect(a.current('C-1', '01', recs))).values)).toEqual({ d: { sex: '1' }, e: { ae_term: 'Rash' } });
    } finally {
      await classic.close();
    }
  });

  it('logged no token', () => {
    expect(JSON.stringify(rc.requests)).not.toContain(TOKEN);
  });

  it('parses REDCap error CSV (quotes, commas and line breaks in values)', () => {
    expect(parseRedcapErrorLines('"1","f","a ""b"", c","msg, with comma"\n"1","g","x\ny","m"')).toEqual([
      ['1', 'f', 'a "b", c', 'msg, with comma'],
      ['1', 'g', 'x\ny', 'm'],
    ]);
  });
});

// ── kind 1: ODM over Rave Web Services ──

const USER = 'rws.integration';
const PASSWORD = 'S3cret-Rave-Pass';
const SECRET = `${USER}:${PASSWORD}`;
const tt = (lang: string, text: string) => `<TranslatedText xml:lang="${lang}">${text}</TranslatedText>`;
const RAVE_METADATA = `<?xml version="1.0" encoding="UTF-8"?>
<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" FileType="Snapshot" Granularity="Metadata" FileOID="ESRC-DEMO.META" CreationDateTime="2025-01-01T00:00:00Z" ODMVersion="1.3.2">
<Study OID="ESRC-DEMO">
  <GlobalVariables><StudyName>eSource demo</StudyName><StudyDescription>Adapter test study</StudyDescription><ProtocolName>ESRC-DEMO</ProtocolName></GlobalVariables>
  <MetaDataVersion OID="MDV.1" Name="Version 1">
    <Protocol>
      <StudyEventRef StudyEventOID="SE.SCREEN" OrderNumber="1" Mandatory="Yes"/>
      <StudyEventRef StudyEventOID="SE.UNS" OrderNumber="2" Mandatory="No"/>
    </Protocol>
    <StudyEventDef OID="SE.SCREEN" Name="Screening" Repeating="No" Type="Scheduled">
      <FormRef FormOID="F.DM" Mandatory="Yes"/><FormRef FormOID="F.VS" Mandatory="Yes"/>
    </StudyEventDef>
    <StudyEventDef OID="SE.UNS" Name="Unscheduled" Repeating="Yes" Type="Unscheduled">
      <FormRef FormOID="F.VS" Mandatory="No"/><FormRef FormOID="F.AE" Mandatory="No"/>
    </StudyEventDef>
    <FormDef OID="F.DM" Name="Demographics" Repeating="No"><ItemGroupRef ItemGroupOID="IG.DM" Mandatory="Yes"/></FormDef>
    <FormDef OID="F.VS" Name="Vital signs" Repeating="No"><ItemGroupRef ItemGroupOID="IG.VS" Mandatory="Yes"/></FormDef>
    <FormDef OID="F.AE" Name="Adverse events" Repeating="Yes"><ItemGroupRef ItemGroupOID="IG.AE" Mandatory="Yes"/></FormDef>
    <ItemGroupDef OID="IG.DM" Name="Demographics" Repeating="No">
      <ItemRef ItemOID="I.BRTHDTC" Mandatory="Yes"/><ItemRef ItemOID="I.SEX" Mandatory="Yes"/><ItemRef ItemOID="I.INITIALS" Mandatory="No"/>
    </ItemGroupDef>
    <ItemGroupDef OID="IG.VS" Name="Vital signs" Repeating="No">
      <ItemRef ItemOID="I.VSDTC" Mandatory="No"/><ItemRef ItemOID="I.WEIGHT" Mandatory="No"/><ItemRef ItemOID="I.HR" Mandatory="No"/>
    </ItemGroupDef>
    <ItemGroupDef OID="IG.AE" Name="Adverse event" Repeating="No">
      <ItemRef ItemOID="I.AETERM" Mandatory="Yes"/><ItemRef ItemOID="I.AESER" Mandatory="No"/>
    </ItemGroupDef>
    <ItemDef OID="I.BRTHDTC" Name="BRTHDTC" DataType="date"><Question>${tt('en', 'Date of birth')}${tt('zh', '出生日期')}</Question></ItemDef>
    <ItemDef OID="I.SEX" Name="SEX" DataType="text" Length="1"><Question>${tt('en', 'Sex')}</Question><CodeListRef CodeListOID="CL.SEX"/></ItemDef>
    <ItemDef OID="I.INITIALS" Name="INITIALS" DataType="text" Length="3"/>
    <ItemDef OID="I.VSDTC" Name="VSDTC" DataType="datetime"/>
    <ItemDef OID="I.WEIGHT" Name="WEIGHT" DataType="float" Length="5" SignificantDigits="1"/>
    <ItemDef OID="I.HR" Name="HR" DataType="integer" Length="3"/>
    <ItemDef OID="I.AETERM" Name="AETERM" DataType="text" Length="200"/>
    <ItemDef OID="I.AESER" Name="AESER" DataType="text" Length="1"><CodeListRef CodeListOID="CL.NY"/></ItemDef>
    <CodeList OID="CL.SEX" Name="Sex" DataType="text">
      <CodeListItem CodedValue="M"><Decode>${tt('en', 'Male')}</Decode></CodeListItem>
      <CodeListItem CodedValue="F"><Decode>${tt('en', 'Female')}</Decode></CodeListItem>
    </CodeList>
    <CodeList OID="CL.NY" Name="No Yes" DataType="text">
      <CodeListItem CodedValue="N"><Decode>${tt('en', 'No')}</Decode></CodeListItem>
      <CodeListItem CodedValue="Y"><Decode>${tt('en', 'Yes')}</Decode></CodeListItem>
    </CodeList>
  </MetaDataVersion>
</Study>
</ODM>
`;

const raveRecords = (): EdcRecord[] => [
  {
    key: '201',
    event: 'SE.SCREEN',
    form: 'F.DM',
    group: 'IG.DM',
    items: [
      { item: 'I.BRTHDTC', value: '1975-06-30' },
      { item: 'I.SEX', value: 'F' },
      { item: 'I.INITIALS', value: 'ABC' },
    ],
  },
  {
    key: '202',
    event: 'SE.SCREEN',
    form: 'F.VS',
    group: 'IG.VS',
    items: [
      { item: 'I.VSDTC', value: '2025-03-01T09:30:00' },
      { item: 'I.WEIGHT', value: '71.5' },
      { item: 'I.HR', value: '64' },
    ],
  },
  { key: '203', event: 'SE.UNS', eventRepeat: 1, form: 'F.VS', items: [{ item: 'I.WEIGHT', value: '70.0' }, { item: 'I.HR', value: '70' }] },
  { key: '204', event: 'SE.UNS', eventRepeat: 1, form: 'F.AE', formRepeat: 1, items: [{ item: 'I.AETERM', value: 'Headache' }, { item: 'I.AESER', value: 'N' }] },
  { key: '205', event: 'SE.UNS', eventRepeat: 2, form: 'F.AE', formRepeat: 1, items: [{ item: 'I.AETERM', value: 'Nausea' }, { item: 'I.AESER', value: 'Y' }] },
];

describe('ODM/RWS adapter (kind 1) against the strict Rave receiver', () => {
  let rave: RaveReceiver;
  const adapter = (secret = SECRET, timeoutMs = 10_000) => new OdmHttpAdapter({ kind: 1, baseUrl: rave.url, studyOid: 'ESRC-DEMO', environment: 'UAT', secret, timeoutMs });
  const lastPost = () => rave.requests.filter((r) => r.write).at(-1)!;
  beforeAll(async () => {
    rave = await startRaveReceiver({ metadataXml: RAVE_METADATA, environment: 'UAT', user: USER, password: PASSWORD, sites: ['01', '02'] });
  });
  afterAll(async () => rave.close());
  beforeEach(() => {
    rave.setFault(null);
    rave.refusals.length = 0;
  });

  it('the test metadata is valid ODM 1.3.2', async () => {
    expect(await validateOdm(RAVE_METADATA)).toMatchObject({ valid: true, errors: [] });
  });

  it('lists the items of the study metadata, event by event', async () => {
    const items = await adapter().itemList();
    expect(items.find((i) => i.item === 'I.BRTHDTC')).toEqual({ event: 'SE.SCREEN', form: 'F.DM', group: 'IG.DM', item: 'I.BRTHDTC', label: 'Date of birth', dataType: 'date', required: true, repeating: false });
    expect(items.find((i) => i.item === 'I.SEX')?.codes).toEqual([
      { value: 'M', label: 'Male' },
      { value: 'F', label: 'Female' },
    ]);
    expect(items.filter((i) => i.item === 'I.WEIGHT').map((i) => i.event)).toEqual(['SE.SCREEN', 'SE.UNS']);
    expect(items.find((i) => i.item === 'I.AETERM')).toMatchObject({ event: 'SE.UNS', form: 'F.AE', repeating: true, required: true });
    expect(items).toHaveLength(3 + 3 + 3 + 2);
  });

  it('posts a subject as one valid Transactional document and reads the same values back', async () => {
    const a = adapter();
    const posts = rave.posts;
    const out = await collect(a.send('1001', '01', raveRecords()));
    expect(out.results.map(plain)).toEqual(raveRecords().map((r) => ({ key: r.key, ok: true })));
    expect(rave.posts).toBe(posts + 1);
    const post = lastPost();
    expect(post.path).toBe('/RaveWebServices/webservice.aspx?PostODMClinicalData');
    expect(await validateOdm(post.body)).toMatchObject({ valid: true });
    expect(post.body).toContain('FileType="Transactional"');
    expect(post.body).toMatch(/<SubjectData SubjectKey="1001" TransactionType="Upsert"><SiteRef LocationOID="01"\/>/);
    expect(post.body).toContain('<ClinicalData StudyOID="ESRC-DEMO(UAT)" MetaDataVersionOID="MDV.1">');
    expect(post.body).toContain('<StudyEventData StudyEventOID="SE.UNS" StudyEventRepeatKey="2" TransactionType="Upsert">');
    expect(post.body).toContain('<FormData FormOID="F.AE" FormRepeatKey="1" TransactionType="Upsert">');
    expect(post.body).not.toMatch(/StudyEventOID="SE.SCREEN" StudyEventRepeatKey/);
    expect(out.exchanges.at(-1)!.response).toMatch(/IsTransactionSuccessful="1" SuccessStatistics="Rave objects touched: Subjects=1; Folders=3; Forms=5; Fields=12; LogLines=0"/);
    expect(rave.value('1001', { event: 'SE.UNS', eventRepeat: '2', form: 'F.AE', formRepeat: '1', group: 'IG.AE' }, 'I.AESER')).toBe('Y');
    const cur = await collect(a.current('1001', '01', raveRecords()));
    expect(asObject(cur.values)).toEqual(expected(raveRecords()));
    expect((await collect(a.current('9999', '01', raveRecords()))).values.size).toBe(0);
  });

  it('is idempotent: the same post again touches nothing; a cleared value (IsNull Upsert) can be sent again', async () => {
    const a = adapter();
    await collect(a.send('1002', '01', raveRecords()));
    const before = rave.snapshot();
    const changes = rave.changes;
    const again = await collect(a.send('1002', '01', raveRecords()));
    expect(again.results.every((r) => r.ok)).toBe(true);
    expect(again.exchanges.at(-1)!.response).toContain('Subjects=0; Folders=0; Forms=0; Fields=0; LogLines=0');
    expect(rave.changes).toBe(changes);
    expect(rave.snapshot()).toBe(before);

    const cleared: EdcRecord = { key: '202', event: 'SE.SCREEN', form: 'F.VS', group: 'IG.VS', items: [{ item: 'I.WEIGHT', value: null }] };
    expect((await collect(a.send('1002', '01', [cleared]))).results.map(plain)).toEqual([{ key: '202', ok: true }]);
    expect(lastPost().body).toContain('<ItemData ItemOID="I.WEIGHT" TransactionType="Upsert" IsNull="Yes"/>');
    expect(rave.changes).toBe(changes + 1);
    expect((await collect(a.send('1002', '01', [cleared]))).results.map(plain)).toEqual([{ key: '202', ok: true }]);
    expect(rave.changes).toBe(changes + 1);
    expect(asObject((await collect(a.current('1002', '01', [cleared]))).values)).toEqual({ '202': { 'I.WEIGHT': null } });
  });

  it("refuses a record with RWS's reason while the subject's other records are accepted", async () => {
    const a = adapter();
    const recs = raveRecords();
    recs[2]!.items[1] = { item: 'I.HR', value: 'fast' };
    rave.refusals.push({ item: 'I.AETERM', subject: '1003', reason: 'Term must be coded first' });
    const writes = rave.requests.filter((r) => r.write).length;
    const out = await collect(a.send('1003', '01', recs));
    const full = Object.fromEntries(out.results.map((r) => [r.key, r]));
    const byKey = Object.fromEntries(out.results.map((r) => [r.key, plain(r)]));
    expect(byKey['201']).toEqual({ key: '201', ok: true });
    expect(byKey['202']).toEqual({ key: '202', ok: true });
    expect(byKey['203']).toMatchObject({ ok: false, reason: expect.stringMatching(/^Invalid value for I\.HR: "fast" is not an integer.*\[RWS00040\]$/) });
    expect(byKey['204']).toMatchObject({ ok: false, reason: 'Term must be coded first [RWS00060]' });
    expect(byKey['205']).toMatchObject({ ok: false, reason: 'Term must be coded first [RWS00060]' });
    // RWS names one error per refused transaction: three refused posts, then the accepted rest
    const sent = rave.requests.filter((r) => r.write).slice(writes);
    expect(sent.map((r) => r.status)).toEqual([400, 400, 400, 200]);
    expect(out.exchanges.find((e) => e.httpStatus === 400)!.response).toMatch(
      /IsTransactionSuccessful="0" ReasonCode="RWS00040" ErrorOriginLocation="\/ODM\/ClinicalData\[1\]\/SubjectData\[1\]\/StudyEventData\[2\]\/FormData\[1\]\/ItemGroupData\[1\]\/ItemData\[2\]"/,
    );
    expect(rave.value('1003', { event: 'SE.SCREEN', form: 'F.VS', group: 'IG.VS' }, 'I.HR')).toBe('64');
    expect(rave.value('1003', { event: 'SE.UNS', eventRepeat: '1', form: 'F.VS', group: 'IG.VS' }, 'I.WEIGHT')).toBeUndefined();
    // each record's log entry gets the post that decided it, with its own part of the document as the request
    expect(full['203']!.exchange!.response).toContain('ReasonCode="RWS00040"');
    expect(full['203']!.exchange!.request).toMatch(/^<ClinicalData StudyOID="ESRC-DEMO\(UAT\)" MetaDataVersionOID="MDV.1">/);
    expect(full['203']!.exchange!.request).toContain('Value="fast"');
    expect(full['203']!.exchange!.request).not.toContain('Headache');
    expect(full['204']!.exchange!.response).toContain('ReasonCode="RWS00060"');
    expect(full['204']!.exchange!.response).not.toBe(full['203']!.exchange!.response);
    expect(full['201']!.exchange!.response).toContain('IsTransactionSuccessful="1"');
    expect(full['201']!.exchange!.request).not.toContain('I.WEIGHT');

    rave.refusals.push({ subject: '1004', reason: 'Subject is locked' });
    expect((await collect(a.send('1004', '01', recs.slice(0, 2)))).results.map(plain)).toEqual([
      { key: '201', ok: false, reason: 'Subject is locked [RWS00060]' },
      { key: '202', ok: false, reason: 'Subject is locked [RWS00060]' },
    ]);
    // a record the document cannot carry (no event: StudyEventOID="" fails the XSD) is refused at /ODM, which names
    // no record: the rest then go one per POST, each with its own answer
    const writes2 = rave.requests.filter((r) => r.write).length;
    const noEvent = await collect(a.send('1009', '01', [recs[0]!, { key: 'x', form: 'F.VS', group: 'IG.VS', items: [{ item: 'I.HR', value: '60' }] }]));
    expect(plain(noEvent.results[0]!)).toEqual({ key: '201', ok: true });
    expect(noEvent.results[1]).toMatchObject({ key: 'x', ok: false, reason: expect.stringContaining('[RWS00005]') });
    expect(rave.requests.filter((r) => r.write).slice(writes2).map((r) => r.status)).toEqual([400, 200, 400]);
    // a site the study does not have refuses the subject
    expect((await collect(a.send('1005', '99', recs.slice(0, 1)))).results[0]).toMatchObject({ ok: false, reason: expect.stringContaining('Site 99 not found') });
  });

  it('reports a timeout as EdcTransportError timeout and leaves nothing half-applied; a retry then succeeds once', async () => {
    const a = adapter(SECRET, 500);
    await a.itemList();
    rave.setFault({ mode: 'timeout', on: 'write' });
    const before = rave.snapshot();
    const err = await transportError(collect(a.send('1006', '01', raveRecords())));
    expect(err.kind).toBe('timeout');
    expect(rave.snapshot()).toBe(before);
    rave.setFault(null);
    const changes = rave.changes;
    const b = adapter(); // the receiver validates each post against the XSD: more than 500 ms on a busy machine
    expect((await collect(b.send('1006', '01', raveRecords()))).results.every((r) => r.ok)).toBe(true);
    const applied = rave.changes - changes;
    await collect(b.send('1006', '01', raveRecords()));
    expect(rave.changes - changes).toBe(applied);
  });

  it('reports HTTP 500 as http and refused credentials as auth', async () => {
    rave.setFault({ mode: 'http500', on: 'write' });
    expect((await transportError(adapter().send('1007', '01', raveRecords()))).kind).toBe('http');
    rave.setFault(null);
    const wrong = await transportError(adapter(`${USER}:wrong-password`).test());
    expect(wrong.kind).toBe('auth');
    expect(wrong.exchange?.response).toContain('RWS00008');
    rave.setFault({ mode: 'auth' });
    expect((await transportError(adapter().itemList())).kind).toBe('auth');
    rave.setFault(null);
    expect((await adapter().test()).httpStatus).toBe(200);
  });

  it('reads a value changed at the target by a person (what the engine reports as a conflict)', async () => {
    const a = adapter();
    await collect(a.send('1008', '01', raveRecords()));
    rave.setValue('1008', { event: 'SE.SCREEN', form: 'F.VS', group: 'IG.VS' }, 'I.WEIGHT', '75.0');
    expect((await collect(a.current('1008', '01', raveRecords()))).values.get('202')?.get('I.WEIGHT')).toBe('75.0');
  });

  describe('the receiver enforces the ODM transaction contract on any client', () => {
    const auth = { authorization: `Basic ${Buffer.from(SECRET).toString('base64')}`, 'content-type': 'text/xml' };
    const doc = (root: string, subject: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" ${root} FileOID="F1" CreationDateTime="2025-01-01T00:00:00Z" ODMVersion="1.3.2">\n` +
      `<ClinicalData StudyOID="ESRC-DEMO(UAT)" MetaDataVersionOID="MDV.1">\n${subject}\n</ClinicalData>\n</ODM>\n`;
    const vs = (item: string) => `<StudyEventData StudyEventOID="SE.SCREEN"><FormData FormOID="F.VS"><ItemGroupData ItemGroupOID="IG.VS">${item}</ItemGroupData></FormData></StudyEventData>`;
    async function post(xml: string) {
      const r = await fetch(`${rave.url}/RaveWebServices/webservice.aspx?PostODMClinicalData`, { method: 'POST', headers: auth, body: xml });
      return { status: r.status, text: await r.text() };
    }

    it.each([
      ['a Snapshot document', doc('FileType="Snapshot"', `<SubjectData SubjectKey="X1"><SiteRef LocationOID="01"/>${vs('<ItemData ItemOID="I.HR" Value="60"/>')}</SubjectData>`), 'RWS00016', '/ODM'],
      ['a SubjectData without TransactionType', doc('FileType="Transactional"', `<SubjectData SubjectKey="X1"><SiteRef LocationOID="01"/>${vs('<ItemData ItemOID="I.HR" Value="60"/>')}</SubjectData>`), 'RWS00017', '/ODM/ClinicalData[1]/SubjectData[1]'],
      [
        'an undefined ItemOID',
        doc('FileType="Transactional"', `<SubjectData SubjectKey="X1" TransactionType="Insert"><SiteRef LocationOID="01"/>${vs('<ItemData ItemOID="I.HR" Value="60"/><ItemData ItemOID="I.TEMP" Value="37"/>')}</SubjectData>`),
        'RWS00037',
        '/ODM/ClinicalData[1]/SubjectData[1]/StudyEventData[1]/FormData[1]/ItemGroupData[1]/ItemData[2]',
      ],
      ['a value outside the code list', doc('FileType="Transactional"', `<SubjectData SubjectKey="X1" TransactionType="Insert"><SiteRef LocationOID="01"/><StudyEventData StudyEventOID="SE.SCREEN"><FormData FormOID="F.DM"><ItemGroupData ItemGroupOID="IG.DM"><ItemData ItemOID="I.SEX" Value="U"/></ItemGroupData></FormData></StudyEventData></SubjectData>`), 'RWS00041', '/ODM/ClinicalData[1]/SubjectData[1]/StudyEventData[1]/FormData[1]/ItemGroupData[1]/ItemData[1]'],
      ['a repeating event without repeat key', doc('FileType="Transactional"', `<SubjectData SubjectKey="X1" TransactionType="Insert"><SiteRef LocationOID="01"/><StudyEventData StudyEventOID="SE.UNS"/></SubjectData>`), 'RWS00043', '/ODM/ClinicalData[1]/SubjectData[1]/StudyEventData[1]'],
      ['an unknown metadata version', doc('FileType="Transactional"', `<SubjectData SubjectKey="X1" TransactionType="Insert"><SiteRef LocationOID="01"/></SubjectData>`).replace('MDV.1', 'MDV.9'), 'RWS00092', '/ODM/ClinicalData[1]'],
      ['a document invalid against the XSD', doc('FileType="Transactional"', `<SubjectData SubjectKey="X1" TransactionType="Sometimes"/>`), 'RWS00005', '/ODM'],
    ])('refuses %s as a whole, at the element', async (_name, xml, code, location) => {
      const before = rave.snapshot();
      const r = await post(xml);
      expect(r.status).toBe(400);
      expect(r.text).toContain(`IsTransactionSuccessful="0" ReasonCode="${code}" ErrorOriginLocation="${location}"`);
      expect(rave.snapshot()).toBe(before);
    });

    it('keeps Insert / Update / Remove semantics (Subject already exists; no Remove of what is not there)', async () => {
      const insert = doc('FileType="Transactional"', `<SubjectData SubjectKey="X2" TransactionType="Insert"><SiteRef LocationOID="02"/>${vs('<ItemData ItemOID="I.HR" Value="60"/>')}</SubjectData>`);
      expect((await post(insert)).status).toBe(200);
      const again = await post(insert);
      expect(again.status).toBe(400);
      expect(again.text).toContain('ErrorClientResponseMessage="Subject already exists."');
      const remove = doc('FileType="Transactional"', `<SubjectData SubjectKey="X2" TransactionType="Update">${vs('<ItemData ItemOID="I.WEIGHT" TransactionType="Remove"/>')}</SubjectData>`);
      expect((await post(remove)).text).toContain('ReasonCode="RWS00025"');
      const removeHr = remove.replace('I.WEIGHT', 'I.HR');
      expect((await post(removeHr)).status).toBe(200);
      expect(rave.value('X2', { event: 'SE.SCREEN', form: 'F.VS', group: 'IG.VS' }, 'I.HR')).toBeUndefined();
      expect((await post(removeHr)).status).toBe(400);
    });

    it('asks for credentials as RWS does, and logs none', async () => {
      const none = await fetch(`${rave.url}/RaveWebServices/studies`);
      expect([none.status, await none.text()]).toEqual([401, 'Authorization Header not provided']);
      expect(rave.requests.some((r) => 'authorization' in r.headers)).toBe(false);
      expect(JSON.stringify(rave.requests)).not.toContain(PASSWORD);
    });
  });
});

// ── kind 1: a form of several item groups, removals ──

/** A design whose form has several ODM item groups in our own metadata: its items, and a checkbox's repeating group. */
const MG_DESIGN = designExportFile.parse({
  kind: 'esource.design',
  schemaVersion: 1,
  project: { no: 'MG-1', name: 'Item groups' },
  version: { name: 'v1' },
  stages: [],
  forms: [
    {
      name: '症状',
      nameEn: 'Symptoms',
      code: 'SY',
      components: [
        { id: 'sydtc', type: 'date', label: '日期', labelEn: 'Date', variable: 'SYDTC', required: true },
        {
          id: 'sympt',
          type: 'checkbox',
          label: '症状',
          labelEn: 'Symptoms',
          variable: 'SYMPT',
          options: [
            { value: 'H', label: '头痛', labelEn: 'Headache', mapping: 'HEAD' },
            { value: 'F', label: '发热', labelEn: 'Fever', mapping: 'FEVER' },
            { value: 'N', label: '恶心', labelEn: 'Nausea' },
          ],
        },
        { id: 'sev', type: 'radio', label: '程度', labelEn: 'Severity', variable: 'SEV', options: [{ value: '1', label: '轻' }, { value: '2', label: '重' }] },
        { id: 'note', type: 'text', label: '备注', labelEn: 'Note', variable: 'NOTE' },
      ],
    },
  ],
  visits: [{ code: 'V1', name: '筛选', nameEn: 'Screening', stage: null, sortOrder: 1, dayOffset: 0, windowBefore: 0, windowAfter: 0, unscheduled: false, forms: ['SY'] }],
});

describe('kind 1: a form of several item groups is sent as our ODM writer writes it; removals', () => {
  let rave: RaveReceiver;
  const form = MG_DESIGN.forms[0]!;
  const mapping: MappingDesign = {
    visits: [{ id: 1, code: 'V1', name: '筛选', nameEn: 'Screening', unscheduled: false, formIds: [1] }],
    forms: [{ id: 1, code: 'SY', name: form.name, nameEn: form.nameEn ?? null, definition: form }],
  };
  const path = (group: string, groupRepeat?: number) => ({ event: 'SE.V1', form: 'F.SY', group, ...(groupRepeat !== undefined ? { groupRepeat: String(groupRepeat) } : {}) });
  const lastPost = () => rave.requests.filter((r) => r.write).at(-1)!;
  /** The subject's stored item groups at the target: "group#repeat" → item → value. */
  const stored = (subject: string) => {
    const snap = JSON.parse(rave.snapshot()) as Record<string, { events: Record<string, Record<string, Record<string, Record<string, string | null>>>> }>;
    const groups = snap[subject]?.events['SE.V1\u0000']?.['F.SY\u0000'] ?? {};
    return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k.replace('\u0000', '#'), v]));
  };
  /** What our clinical writer (formItemGroups) writes for the values, in the same shape. */
  const written = (values: Record<string, unknown>) =>
    Object.fromEntries(formItemGroups(form, values).map((g) => [`${g.groupOid}#${g.repeatKey ?? ''}`, Object.fromEntries(g.items.map((i) => [i.itemOid, i.value]))]));
  beforeAll(async () => {
    rave = await startRaveReceiver({ metadataXml: [...designToOdmMetadata(MG_DESIGN, { studyOid: 'MG-1' })].join(''), user: USER, password: PASSWORD });
  });
  afterAll(async () => rave.close());

  it('maps each item to its group, writes one ItemGroupData per group and a repeat per ticked code; removals sent once', async () => {
    const a = new OdmHttpAdapter({ kind: 1, baseUrl: rave.url, studyOid: 'MG-1', secret: SECRET, timeoutMs: 10_000 });
    const items = await a.itemList();
    const entries = proposeMapping(mapping, [], items);
    expect(mappingProblems(mapping, entries, items)).toEqual([]);
    const by = indexMapping(entries);
    expect(by.item.get('SY.SYMPT')?.targetGroup).toBe('IG.SY.SYMPT');
    expect(by.item.get('SY.SEV')?.targetGroup).toBe('IG.SY');
    const rec = (values: Record<string, unknown>, extra: Partial<EdcRecord> = {}): EdcRecord => ({ key: 'r1', event: 'SE.V1', form: 'F.SY', items: recordItems(mapping.forms[0]!, new Map(Object.entries(values)), by).items, ...extra });
    const read = async (r: EdcRecord) => atTarget((await collect(a.current('P-1', '01', [r]))).values, [r]);

    const first = { SYDTC: '2026-01-02', SYMPT: ['H', 'F'], SEV: '2', NOTE: 'x' };
    expect((await collect(a.send('P-1', '01', await read(rec(first))))).results.map(plain)).toEqual([{ key: 'r1', ok: true }]);
    expect(await validateOdm(lastPost().body)).toMatchObject({ valid: true });
    expect(lastPost().body).toContain('<ItemGroupData ItemGroupOID="IG.SY.SYMPT" ItemGroupRepeatKey="2" TransactionType="Upsert">');
    // what reached the target is exactly what our ODM writer writes for the record (same groups, keys and values)
    expect(stored('P-1')).toEqual(written(first));
    expect(Object.keys(stored('P-1'))).toEqual(['IG.SY#', 'IG.SY.SYMPT#1', 'IG.SY.SYMPT#2']);
    expect(asObject((await collect(a.current('P-1', '01', [rec(first)]))).values)).toEqual({ r1: { 'I.SY.SYDTC': '2026-01-02', 'I.SY.SYMPT': 'HEAD,FEVER', 'I.SY.SEV': '2', 'I.SY.NOTE': 'x' } });

    // a code unticked and a value cleared: the surplus repeat and the item are removed (ODM Remove), nothing else
    const second = { SYDTC: '2026-01-02', SYMPT: ['F'], SEV: '2', NOTE: null };
    const removals = rave.removals.length;
    expect((await collect(a.send('P-1', '01', await read(rec(second))))).results.map(plain)).toEqual([{ key: 'r1', ok: true }]);
    const body = lastPost().body;
    expect(await validateOdm(body)).toMatchObject({ valid: true });
    expect(body).toContain('<ItemData ItemOID="I.SY.NOTE" TransactionType="Remove"/>');
    expect(body).toContain('<ItemGroupData ItemGroupOID="IG.SY.SYMPT" ItemGroupRepeatKey="2" TransactionType="Remove">');
    expect(rave.removals.slice(removals)).toEqual([
      { subject: 'P-1', level: 'item', event: 'SE.V1', form: 'F.SY', group: 'IG.SY', item: 'I.SY.NOTE' },
      { subject: 'P-1', level: 'group', event: 'SE.V1', form: 'F.SY', group: 'IG.SY.SYMPT', groupRepeat: '2' },
    ]);
    expect(stored('P-1')).toEqual(written(second));
    expect(rave.value('P-1', path('IG.SY.SYMPT', 1), 'I.SY.SYMPT')).toBe('FEVER');
    // sent once: read again, nothing is left to remove (a Remove of absent data would be refused)
    await collect(a.send('P-1', '01', await read(rec(second))));
    expect(lastPost().body).not.toContain('Remove');
    expect(rave.removals.length).toBe(removals + 2);

    // the form instance deleted here: FormData Remove; then, the target holding nothing, no call at all
    const gone = await read(rec(second, { remove: 'form' }));
    expect((await collect(a.send('P-1', '01', gone))).results.map(plain)).toEqual([{ key: 'r1', ok: true }]);
    expect(lastPost().body).toMatch(/<FormData FormOID="F\.SY" TransactionType="Remove">\s*<\/FormData>/);
    expect(await validateOdm(lastPost().body)).toMatchObject({ valid: true });
    expect(rave.removals.at(-1)).toEqual({ subject: 'P-1', level: 'form', event: 'SE.V1', form: 'F.SY' });
    expect(stored('P-1')).toEqual({});
    const posts = rave.requests.filter((r) => r.write).length;
    const again = await read(rec(second, { remove: 'form' }));
    expect(again[0]!.atTarget).toBeNull();
    expect((await collect(a.send('P-1', '01', again))).results.map(plain)).toEqual([{ key: 'r1', ok: true, noop: true }]);
    expect(rave.requests.filter((r) => r.write).length).toBe(posts);
  });
});

describe('the secret', () => {
  it('never appears in an EdcExchange', () => {
    expect(seen.length).toBeGreaterThan(30);
    const text = JSON.stringify(seen);
    for (const s of [TOKEN, PASSWORD, Buffer.from(SECRET).toString('base64')]) expect(text).not.toContain(s);
    expect(text).toContain('token=***');
  });
});
