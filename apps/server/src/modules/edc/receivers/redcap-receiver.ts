/**
 * A strict REDCap API receiver (kind 3) for tests and the demo: a real HTTP server that answers the documented API
 * calls our adapter makes — content=version / project / metadata / instrument / event / formEventMapping /
 * repeatingFormsEvents / record (export and import; format=json, type=flat) — for one project defined by its data
 * dictionary rows, events, form–event mapping and repeating setup, and keeps the records it accepted.
 *
 * It enforces what REDCap enforces, with REDCap's answer shapes: the token (403 "You do not have permissions to use
 * the API"; 401 when none is given); unknown import columns refused as a whole ("The following fields were not found
 * in the project as real data fields: …"), unknown events ("The following values of redcap_event_name are invalid:
 * …"); then per value, every problem as one CSV line "record","field","value","message" in one HTTP 400
 * {"error": …}: choice codes, yes/no, checkbox 0/1, form status 0/1/2, the validation types (date_ymd,
 * datetime_ymd, datetime_seconds_ymd, time, integer, number, number_Ndp, email, phone, zipcode, alpha_only …),
 * instruments not designated for the row's event, repeating instruments without (or non-repeating with)
 * redcap_repeat_instrument/instance. An import is all-or-nothing. Accepted imports follow overwriteBehavior (normal
 * ignores blank values, overwrite clears), set a form's status to 0 when it first gets data, and answer
 * {"count": n} (or the ids).
 *
 * Export: invalid names in fields/forms/events are refused ('The following values in the parameter "fields" are
 * not valid: …'); rows carry every selected column (checkboxes as field___code), the record ID field first.
 *
 * Delete (content=record, action=delete; REDCap's Delete Records): records[] must all exist ("One or more of the
 * records provided cannot be deleted because they do not exist in the project. The following records do not
 * exist: …", all-or-nothing); arm only in longitudinal projects with several arms; instrument and event must be the
 * project's, event only in longitudinal projects and mandatory there with instrument (as documented — REDCap itself
 * has been seen to delete the whole record when it is left out), the instrument designated for the event;
 * repeat_instance a positive integer, only for a repeating instrument or event (left out there: instance 1, as
 * REDCap does). Without instrument an event's data, without both the whole record (in the arm) is deleted. The
 * answer is the number of records, as REDCap gives it. Every value a delete or an overwrite import removed is in
 * `removals`.
 *
 * Messages marked "(approx.)" in docs/decisions.md are not verbatim REDCap texts; the others are as REDCap answers
 * (taken from published client issues and tests). Limits: JSON only (format/returnFormat), flat only, no data
 * access groups, no auto-numbering, no survey fields; out-of-range values are accepted as REDCap's API does.
 */
import type http from 'node:http';
import {
  checkboxColumn,
  completeField,
  parseRedcapChoices,
  redcapCodes,
  REDCAP_EVENT,
  REDCAP_NOT_IMPORTABLE,
  REDCAP_REPEAT_INSTANCE,
  REDCAP_REPEAT_INSTRUMENT,
  type RedcapEvent,
  type RedcapField,
  type RedcapFormEvent,
  type RedcapRepeating,
} from '../adapters/redcap-model';
import { refusalFor, startReceiverServer, type ReceivedRequest, type ReceiverFault, type Refusal, type Reply } from './receiver-kit';

export interface RedcapStudyDefinition {
  title?: string;
  /** the data dictionary; the first row's field is the record ID field */
  metadata: RedcapField[];
  /** longitudinal when non-empty */
  events?: RedcapEvent[];
  formEventMapping?: RedcapFormEvent[];
  repeating?: RedcapRepeating[];
}

export interface RedcapReceiverOptions {
  study: RedcapStudyDefinition;
  /** the one valid API token */
  token: string;
  /** what content=version answers (default 14.5.0) */
  version?: string;
  port?: number;
  host?: string;
}

/** Where a stored row is: the record's event (longitudinal), repeat instrument ('' for none) and instance. */
export interface RedcapRowKey {
  event?: string;
  instrument?: string;
  instance?: number;
}

/** A removal the receiver applied: a value cleared by an import with overwrite, or data deleted (action=delete). */
export interface RedcapRemoval {
  call: 'import' | 'delete';
  record: string;
  /** the row: its event (longitudinal), repeat instrument ('' for none) and instance ('' for none) */
  event: string;
  instrument: string;
  instance: string;
  /** the columns removed */
  columns: string[];
}

export interface RedcapReceiver {
  /** the API URL (…/api/), what a kind-3 EDC setting's baseUrl is */
  url: string;
  requests: ReceivedRequest[];
  /** values changed by accepted imports (a repeated import adds none) */
  readonly changes: number;
  /** accepted import calls */
  readonly imports: number;
  /** accepted delete calls */
  readonly deletes: number;
  /** every removal applied, in order */
  readonly removals: RedcapRemoval[];
  /** refusals the receiver gives (fault injection): a whole record, or one field's values */
  refusals: Refusal[];
  setFault: (fault: ReceiverFault | null) => void;
  /** a value changed at the target by a person (not an API call; not counted in `changes`) */
  setValue(record: string, key: RedcapRowKey, field: string, value: string | null): void;
  /** the stored value of a column, or null */
  value(record: string, key: RedcapRowKey, column: string): string | null;
  /** the stored data as canonical JSON, to compare the target before and after */
  snapshot(): string;
  close: () => Promise<void>;
}

type Json = Record<string, unknown>;
type Row = Map<string, string>;

const FORM_STATUS = new Set(['0', '1', '2']);
const NOT_VALIDATED = 'The value you provided could not be validated because it does not follow the expected format. Please try again.';

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isDate = (v: string) => {
  const m = DATE.exec(v);
  return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
};
const HM = /^([01]\d|2[0-3]):[0-5]\d$/;
const HMS = /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

/** REDCap's validation types as imported (dates always Y-M-D on import, whatever the display format). */
function passesValidation(type: string, v: string): boolean {
  if (/^date_(ymd|mdy|dmy)$/.test(type)) return isDate(v);
  if (/^datetime_(ymd|mdy|dmy)$/.test(type)) return HM.test(v.slice(11)) && v[10] === ' ' && isDate(v.slice(0, 10)) && v.length === 16;
  if (/^datetime_seconds_(ymd|mdy|dmy)$/.test(type)) return HMS.test(v.slice(11)) && v[10] === ' ' && isDate(v.slice(0, 10)) && v.length === 19;
  const dp = /^number_(\d)dp$/.exec(type);
  if (dp) return new RegExp(`^-?\\d+\\.\\d{${dp[1]}}$`).test(v);
  const dpc = /^number_(\d)dp_comma_decimal$/.exec(type);
  if (dpc) return new RegExp(`^-?\\d+,\\d{${dpc[1]}}$`).test(v);
  switch (type) {
    case 'integer':
      return /^[-+]?\d+$/.test(v);
    case 'number':
      return /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/.test(v);
    case 'number_comma_decimal':
      return /^[-+]?[0-9]*,?[0-9]+$/.test(v);
    case 'time':
      return HM.test(v);
    case 'time_hh_mm_ss':
      return HMS.test(v);
    case 'time_mm_ss':
      return /^[0-5]\d:[0-5]\d$/.test(v);
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v);
    case 'phone':
      return /^\(?[2-9]\d{2}\)?[-. ]?[2-9]\d{2}[-. ]?\d{4}(\s*(x|ext\.?)\s*\d+)?$/i.test(v);
    case 'zipcode':
      return /^\d{5}(-\d{4})?$/.test(v);
    case 'alpha_only':
      return /^[a-z]+$/i.test(v);
    default:
      return true;
  }
}

const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;
const errorLine = (record: string, field: string, value: string, message: string) => [record, field, value, message].map(csvCell).join(',');

/** A list parameter as REDCap takes it: name[0]=…, name[]=…, or one comma-separated value. */
function listParam(params: URLSearchParams, name: string): string[] {
  const out: string[] = [];
  for (const [k, v] of params) {
    if (k === name) out.push(...v.split(',').map((s) => s.trim()).filter(Boolean));
    else if (k.startsWith(`${name}[`)) out.push(v);
  }
  return out;
}

export async function startRedcapReceiver(opts: RedcapReceiverOptions): Promise<RedcapReceiver> {
  const { study, token } = opts;
  if (!study.metadata.length) throw new Error('a REDCap project needs at least the record ID field');
  const metadata = study.metadata;
  const recordId = metadata[0]!.field_name;
  const fields = new Map(metadata.map((f) => [f.field_name, f]));
  const events = study.events ?? [];
  const longitudinal = events.length > 0;
  const eventNames = new Set(events.map((e) => e.unique_event_name));
  const formEvents = study.formEventMapping ?? [];
  const repeating = study.repeating ?? [];
  const repeatingForm = (event: string, form: string) => repeating.some((r) => r.form_name === form && (!longitudinal || r.event_name === event));
  const repeatingEvent = (event: string) => longitudinal && repeating.some((r) => !r.form_name && r.event_name === event);
  const hasRepeating = repeating.length > 0;
  const forms = [...new Set(metadata.map((f) => f.form_name))];
  const formDesignated = (event: string, form: string) => !longitudinal || formEvents.some((fe) => fe.unique_event_name === event && fe.form === form);
  const eventLabel = (event: string) => {
    const e = events.find((x) => x.unique_event_name === event);
    return e ? `${e.event_name} (Arm ${e.arm_num}: Arm ${e.arm_num})` : event;
  };

  /** import column → its field, or the form of a {form}_complete column */
  const columnInfo = new Map<string, { field?: RedcapField; code?: string; completeOf?: string }>();
  for (const f of metadata) {
    if (f.field_name === recordId) continue;
    if (REDCAP_NOT_IMPORTABLE.has(f.field_type)) continue;
    if (f.field_type === 'checkbox') for (const c of parseRedcapChoices(f.select_choices_or_calculations)) columnInfo.set(checkboxColumn(f.field_name, c.value), { field: f, code: c.value });
    else columnInfo.set(f.field_name, { field: f });
  }
  for (const form of forms) columnInfo.set(completeField(form), { completeOf: form });

  // record → row key → column → value
  const store = new Map<string, Map<string, Row>>();
  const rowKey = (event: string, instrument: string, instance: string) => JSON.stringify([event, instrument, instance]);
  let changes = 0;
  let imports = 0;
  let deletes = 0;
  const removals: RedcapRemoval[] = [];
  const refusals: Refusal[] = [];

  const json = (status: number, body: unknown): Reply => ({ status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });
  const error = (status: number, message: string): Reply => json(status, { error: message });

  function metadataRows(params: URLSearchParams): Reply {
    const want = new Set(listParam(params, 'fields'));
    const wantForms = new Set(listParam(params, 'forms'));
    const cols: (keyof RedcapField)[] = [
      'field_name',
      'form_name',
      'section_header',
      'field_type',
      'field_label',
      'select_choices_or_calculations',
      'field_note',
      'text_validation_type_or_show_slider_number',
      'text_validation_min',
      'text_validation_max',
      'identifier',
      'branching_logic',
      'required_field',
      'custom_alignment',
      'question_number',
      'matrix_group_name',
      'matrix_ranking',
      'field_annotation',
    ];
    const rows = metadata
      .filter((f) => (!want.size || want.has(f.field_name)) && (!wantForms.size || wantForms.has(f.form_name)))
      .map((f) => Object.fromEntries(cols.map((c) => [c, f[c] ?? ''])));
    return json(200, rows);
  }

  function importRecords(params: URLSearchParams): Reply {
    if ((params.get('type') ?? 'flat') !== 'flat') return error(400, 'This receiver implements type=flat only');
    const overwrite = params.get('overwriteBehavior') ?? 'normal';
    if (overwrite !== 'normal' && overwrite !== 'overwrite') return error(400, 'The value of the parameter "overwriteBehavior" is not valid');
    let data: unknown;
    try {
      data = JSON.parse(params.get('data') ?? '');
    } catch {
      return error(400, 'The data being imported is not formatted correctly (invalid JSON)');
    }
    if (!Array.isArray(data) || data.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) return error(400, 'The data being imported is not formatted correctly (expected an array of records)');
    const rows = (data as Json[]).map((r) => new Map(Object.entries(r).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v as string | number)])));
    // whole-call checks first, as REDCap does
    const unknown = new Set<string>();
    for (const r of rows) {
      for (const k of r.keys()) {
        if (k === recordId || columnInfo.has(k)) continue;
        if (k === REDCAP_EVENT && longitudinal) continue;
        if ((k === REDCAP_REPEAT_INSTRUMENT || k === REDCAP_REPEAT_INSTANCE) && hasRepeating) continue;
        unknown.add(k);
      }
    }
    if (unknown.size) return error(400, `The following fields were not found in the project as real data fields: ${[...unknown].join(', ')}`);
    if (rows.some((r) => !(r.get(recordId) ?? '').trim())) return error(400, `The record ID field (${recordId}) must have a value in every row of data (approx.)`);
    if (longitudinal) {
      const bad = [...new Set(rows.map((r) => r.get(REDCAP_EVENT) ?? '').filter((e) => e !== '' && !eventNames.has(e)))];
      if (bad.length) return error(400, `The following values of redcap_event_name are invalid: ${bad.join(', ')}`);
    }
    const lines: string[] = [];
    const firstEvent = events[0]?.unique_event_name ?? '';
    const planned: { record: string; key: string; row: Row }[] = [];
    for (const r of rows) {
      const record = r.get(recordId)!;
      const event = longitudinal ? r.get(REDCAP_EVENT) || firstEvent : '';
      const instrument = r.get(REDCAP_REPEAT_INSTRUMENT) ?? '';
      const instance = r.get(REDCAP_REPEAT_INSTANCE) ?? '';
      const subjectRefusal = refusalFor(refusals, record);
      if (subjectRefusal) lines.push(errorLine(record, recordId, record, subjectRefusal.reason));
      if (instrument && !repeatingForm(event, instrument))
        lines.push(
          errorLine(
            record,
            REDCAP_REPEAT_INSTRUMENT,
            instrument,
            'redcap_repeat_instrument must be the unique form name of a Repeating Instrument. It currently does not match the unique form name of any Repeating Instruments.  Please fix this in the data import file and try again.',
          ),
        );
      if (instance && !instrument && !repeatingEvent(event))
        lines.push(
          errorLine(
            record,
            REDCAP_REPEAT_INSTANCE,
            instance,
            'redcap_repeat_instance cannot have a value since this instrument or event is not a repeating instrument or repeating event, respectively.  The redcap_repeat_instance field must be left blank for this row of data.',
          ),
        );
      if (instance && !/^[1-9]\d*$/.test(instance)) lines.push(errorLine(record, REDCAP_REPEAT_INSTANCE, instance, 'redcap_repeat_instance must be a positive integer (approx.)'));
      const values = new Map<string, string>();
      for (const [col, value] of r) {
        if (col === recordId || col === REDCAP_EVENT || col === REDCAP_REPEAT_INSTRUMENT || col === REDCAP_REPEAT_INSTANCE) continue;
        values.set(col, value);
        if (value === '') continue;
        const info = columnInfo.get(col)!;
        const form = info.completeOf ?? info.field!.form_name;
        const baseField = info.field?.field_name ?? col;
        const itemRefusal = refusalFor(refusals, record, baseField);
        if (itemRefusal) lines.push(errorLine(record, col, value, itemRefusal.reason));
        if (!formDesignated(event, form)) {
          lines.push(
            errorLine(
              record,
              col,
              value,
              `This field ('${col}') exists on an instrument that is not designated for the event named '${eventLabel(event)}'. You are not allowed to import data for this field into this event.`,
            ),
          );
          continue;
        }
        if (repeatingForm(event, form) && (!instrument || !instance)) {
          lines.push(
            errorLine(
              record,
              col,
              value,
              `This field ('${col}') exists on a Repeating Instrument named '${form}'. However, the fields 'redcap_repeat_instance' and/or 'redcap_repeat_instrument' for this row of data have no value, which are both required for importing data into a Repeating Instrument.  You are not allowed to import data for this field into a non-repeating instrument.`,
            ),
          );
          continue;
        }
        if (instrument && instrument !== form) {
          lines.push(errorLine(record, col, value, `This field ('${col}') is not on the instrument '${instrument}' named in redcap_repeat_instrument for this row of data. (approx.)`));
          continue;
        }
        if (info.completeOf) {
          if (!FORM_STATUS.has(value)) lines.push(errorLine(record, col, value, `The value is not a valid category for ${col}`));
          continue;
        }
        const f = info.field!;
        if (info.code !== undefined) {
          if (value !== '0' && value !== '1') lines.push(errorLine(record, col, value, `The value is not a valid category for ${col}`));
          continue;
        }
        const codes = redcapCodes(f);
        if (codes.length && f.field_type !== 'checkbox') {
          if (!codes.some((c) => c.value === value)) lines.push(errorLine(record, col, value, `The value is not a valid category for ${col}`));
          continue;
        }
        if (f.field_type === 'slider') {
          const n = Number(value);
          if (!/^-?\d+$/.test(value) || n < Number(f.text_validation_min || 0) || n > Number(f.text_validation_max || 100)) lines.push(errorLine(record, col, value, NOT_VALIDATED));
          continue;
        }
        const validation = f.field_type === 'text' ? (f.text_validation_type_or_show_slider_number ?? '').trim() : '';
        if (validation && !passesValidation(validation, value)) lines.push(errorLine(record, col, value, NOT_VALIDATED));
      }
      planned.push({ record, key: rowKey(event, instrument, instance), row: values });
    }
    if (lines.length) return error(400, lines.join('\n'));
    // all-or-nothing: nothing above wrote; now every row is applied
    for (const { record, key, row } of planned) {
      let rec = store.get(record);
      if (!rec) store.set(record, (rec = new Map<string, Row>()));
      let stored = rec.get(key);
      if (!stored) rec.set(key, (stored = new Map<string, string>()));
      const touchedForms = new Set<string>();
      const cleared: string[] = [];
      for (const [col, value] of row) {
        const info = columnInfo.get(col)!;
        if (value === '') {
          if (overwrite === 'overwrite' && stored.has(col)) {
            stored.delete(col);
            cleared.push(col);
            changes++;
          }
          continue;
        }
        if (!info.completeOf) touchedForms.add(info.field!.form_name);
        if (stored.get(col) !== value) {
          stored.set(col, value);
          changes++;
        }
      }
      for (const form of touchedForms) {
        if (!stored.has(completeField(form))) {
          stored.set(completeField(form), '0');
          changes++;
        }
      }
      if (cleared.length) {
        const [event, instrument, instance] = JSON.parse(key) as [string, string, string];
        removals.push({ call: 'import', record, event, instrument, instance, columns: cleared });
      }
      if (!stored.size) rec.delete(key);
    }
    imports++;
    const ids = [...new Set(planned.map((p) => p.record))];
    const returnContent = params.get('returnContent') ?? 'count';
    return json(200, returnContent === 'ids' ? ids : { count: ids.length });
  }

  function deleteRecords(params: URLSearchParams): Reply {
    const records = listParam(params, 'records');
    if (!records.length) return error(400, 'No records were provided to delete (approx.)');
    const missing = records.filter((r) => !store.has(r));
    if (missing.length) return error(400, `One or more of the records provided cannot be deleted because they do not exist in the project. The following records do not exist: ${missing.join(', ')}`);
    const armText = params.get('arm');
    const arms = [...new Set(events.map((e) => e.arm_num))];
    if (armText !== null && armText !== '') {
      if (arms.length < 2) return error(400, 'The parameter "arm" can only be used in longitudinal projects with more than one arm (approx.)');
      if (!arms.includes(Number(armText))) return error(400, `The value of the parameter "arm" is not valid: ${armText} (approx.)`);
    }
    const instrument = params.get('instrument') ?? '';
    const event = params.get('event') ?? '';
    const instanceText = params.get('repeat_instance') ?? '';
    if (instrument && !forms.includes(instrument)) return error(400, `The value of the parameter "instrument" is not valid: ${instrument} (approx.)`);
    if (event && !longitudinal) return error(400, 'The parameter "event" can only be used in longitudinal projects (approx.)');
    if (event && !eventNames.has(event)) return error(400, `The value of the parameter "event" is not valid: ${event} (approx.)`);
    if (instrument && longitudinal && !event) return error(400, 'The parameter "event" is required with "instrument" in longitudinal projects (approx.)');
    if (instrument && event && !formDesignated(event, instrument)) return error(400, `The instrument '${instrument}' is not designated for the event '${event}' (approx.)`);
    if (instanceText && !/^[1-9]\d*$/.test(instanceText)) return error(400, 'The value of the parameter "repeat_instance" must be a positive integer (approx.)');
    const repeatsInstrument = !!instrument && repeatingForm(event, instrument);
    const repeatsEvent = !!event && repeatingEvent(event);
    if (instanceText && !repeatsInstrument && !repeatsEvent) return error(400, 'The parameter "repeat_instance" can only be used for a repeating instrument or event (approx.)');
    const instance = instanceText || (repeatsInstrument || repeatsEvent ? '1' : '');
    const inArm = (e: string) => !armText || events.find((x) => x.unique_event_name === e)?.arm_num === Number(armText);
    // the columns of an instrument: its fields (checkbox options), and its form status
    const columnsOf = (form: string) => new Set([...columnInfo].filter(([, i]) => (i.completeOf ?? i.field!.form_name) === form).map(([c]) => c));
    for (const record of records) {
      const rows = store.get(record)!;
      for (const [k, row] of [...rows]) {
        const [e, inst, n] = JSON.parse(k) as [string, string, string];
        if (!inArm(e) || (event && e !== event)) continue;
        let removed: string[];
        if (instrument) {
          // the instrument's row: its repeat instrument, or the event's instance, or the plain row
          if (repeatsInstrument ? inst !== instrument || n !== instance : inst !== '' || n !== instance) continue;
          const cols = columnsOf(instrument);
          removed = [...row.keys()].filter((c) => cols.has(c));
          for (const c of removed) row.delete(c);
          if (!row.size) rows.delete(k);
        } else {
          removed = [...row.keys()];
          rows.delete(k);
        }
        if (removed.length) {
          changes += removed.length;
          removals.push({ call: 'delete', record, event: e, instrument: inst, instance: n, columns: removed });
        }
      }
      // the record itself goes only when no instrument or event was named
      if (!instrument && !event) store.delete(record);
    }
    deletes++;
    return { status: 200, contentType: 'application/json; charset=utf-8', body: String(records.length) };
  }

  function exportRecords(params: URLSearchParams): Reply {
    const wantRecords = listParam(params, 'records');
    const wantFields = listParam(params, 'fields');
    const wantForms = listParam(params, 'forms');
    const wantEvents = listParam(params, 'events');
    const badFields = wantFields.filter((f) => !fields.has(f) && !forms.some((form) => completeField(form) === f));
    if (badFields.length) return error(400, `The following values in the parameter "fields" are not valid: ${badFields.map((f) => `'${f}'`).join(', ')}`);
    const badForms = wantForms.filter((f) => !forms.includes(f));
    if (badForms.length) return error(400, `The following values in the parameter "forms" are not valid: ${badForms.map((f) => `'${f}'`).join(', ')}`);
    const badEvents = wantEvents.filter((e) => !eventNames.has(e));
    if (wantEvents.length && !longitudinal) return error(400, 'The parameter "events" cannot be used in classic projects (approx.)');
    if (badEvents.length) return error(400, `The following values in the parameter "events" are not valid: ${badEvents.map((e) => `'${e}'`).join(', ')}`);
    const all = !wantFields.length && !wantForms.length;
    const columns: string[] = [recordId];
    if (longitudinal) columns.push(REDCAP_EVENT);
    if (hasRepeating) columns.push(REDCAP_REPEAT_INSTRUMENT, REDCAP_REPEAT_INSTANCE);
    for (const form of forms) {
      for (const f of metadata) {
        if (f.form_name !== form || f.field_name === recordId || f.field_type === 'descriptive') continue;
        if (!all && !wantFields.includes(f.field_name) && !wantForms.includes(form)) continue;
        if (f.field_type === 'checkbox') for (const c of parseRedcapChoices(f.select_choices_or_calculations)) columns.push(checkboxColumn(f.field_name, c.value));
        else columns.push(f.field_name);
      }
      if (all || wantForms.includes(form) || wantFields.includes(completeField(form))) columns.push(completeField(form));
    }
    const eventOrder = (e: string) => events.findIndex((x) => x.unique_event_name === e);
    const out: Json[] = [];
    for (const [record, rows] of store) {
      if (wantRecords.length && !wantRecords.includes(record)) continue;
      const keys = [...rows.keys()]
        .map((k) => JSON.parse(k) as [string, string, string])
        .filter(([e]) => !wantEvents.length || wantEvents.includes(e))
        .sort((a, b) => eventOrder(a[0]) - eventOrder(b[0]) || a[1].localeCompare(b[1]) || Number(a[2] || 0) - Number(b[2] || 0));
      for (const [event, instrument, instance] of keys) {
        const stored = rows.get(rowKey(event, instrument, instance))!;
        const row: Json = {};
        for (const c of columns) {
          if (c === recordId) row[c] = record;
          else if (c === REDCAP_EVENT) row[c] = event;
          else if (c === REDCAP_REPEAT_INSTRUMENT) row[c] = instrument;
          else if (c === REDCAP_REPEAT_INSTANCE) row[c] = instance ? Number(instance) : '';
          else row[c] = stored.get(c) ?? '';
        }
        out.push(row);
      }
    }
    return json(200, out);
  }

  function handle(method: string, _path: string, _headers: http.IncomingHttpHeaders, body: string): Reply {
    if (method !== 'POST') return error(400, 'The REDCap API takes POST requests only (approx.)');
    const params = new URLSearchParams(body);
    const given = params.get('token');
    if (!given) return error(401, 'API token was missing or incorrect (approx.)');
    if (given !== token) return error(403, 'You do not have permissions to use the API');
    const format = params.get('format') ?? 'xml';
    const content = params.get('content') ?? '';
    // (Delete Records has no format parameter: only returnFormat)
    if (content !== 'version' && !(content === 'record' && params.get('action') === 'delete') && format !== 'json') return error(400, 'This receiver implements format=json only');
    switch (content) {
      case 'version':
        return { status: 200, contentType: 'text/html; charset=utf-8', body: opts.version ?? '14.5.0' };
      case 'project':
        return json(200, {
          project_id: 1,
          project_title: study.title ?? 'eSource test project',
          creation_time: '2025-01-01 00:00:00',
          production_status: 'development',
          in_production: 0,
          is_longitudinal: longitudinal ? 1 : 0,
          has_repeating_instruments_or_events: hasRepeating ? 1 : 0,
          record_autonumbering_enabled: 0,
          surveys_enabled: 0,
          project_language: 'English',
        });
      case 'metadata':
        return metadataRows(params);
      case 'instrument':
        return json(
          200,
          forms.map((f) => ({ instrument_name: f, instrument_label: f })),
        );
      case 'event':
        if (!longitudinal) return error(400, 'You cannot export events for classic projects');
        return json(200, events);
      case 'formEventMapping':
        if (!longitudinal) return error(400, 'You cannot export form/event mappings for classic projects');
        return json(200, formEvents);
      case 'repeatingFormsEvents':
        return json(
          200,
          repeating.map((r) => ({ ...(longitudinal ? { event_name: r.event_name ?? '' } : {}), form_name: r.form_name, custom_form_label: r.custom_form_label ?? '' })),
        );
      case 'record':
        if (params.get('action') === 'delete') return deleteRecords(params);
        return params.get('action') === 'import' || params.has('data') ? importRecords(params) : exportRecords(params);
      default:
        return error(400, 'The value of the parameter "content" is not valid');
    }
  }

  const server = await startReceiverServer({
    port: opts.port,
    host: opts.host,
    isWrite: (method, _path, body) => method === 'POST' && /(^|&)content=record(&|$)/.test(body) && (/(^|&)action=(import|delete)(&|$)/.test(body) || /(^|&)data=/.test(body)),
    handle,
    authRefused: () => error(403, 'You do not have permissions to use the API'),
    serverError: () => ({ status: 500, contentType: 'text/html; charset=utf-8', body: '<html><body><h1>Internal Server Error</h1></body></html>' }),
    maskBody: (body) => body.replace(/(^|&)token=[^&]*/g, '$1token=***'),
  });

  const keyOf = (k: RedcapRowKey) => {
    const event = longitudinal ? (k.event ?? events[0]?.unique_event_name ?? '') : '';
    return rowKey(event, k.instrument ?? '', k.instance !== undefined ? String(k.instance) : '');
  };

  return {
    url: `${server.origin}/api/`,
    requests: server.requests,
    get changes() {
      return changes;
    },
    get imports() {
      return imports;
    },
    get deletes() {
      return deletes;
    },
    removals,
    refusals,
    setFault: server.setFault,
    setValue(record, key, field, value) {
      let rec = store.get(record);
      if (!rec) store.set(record, (rec = new Map<string, Row>()));
      const k = keyOf(key);
      let row = rec.get(k);
      if (!row) rec.set(k, (row = new Map<string, string>()));
      if (value === null) row.delete(field);
      else row.set(field, value);
    },
    value(record, key, column) {
      return store.get(record)?.get(keyOf(key))?.get(column) ?? null;
    },
    snapshot() {
      const out: Record<string, Record<string, Record<string, string>>> = {};
      for (const [record, rows] of [...store].sort(([a], [b]) => a.localeCompare(b))) {
        out[record] = {};
        for (const [k, row] of [...rows].sort(([a], [b]) => a.localeCompare(b))) out[record][k] = Object.fromEntries([...row].sort(([a], [b]) => a.localeCompare(b)));
      }
      return JSON.stringify(out);
    },
    close: server.close,
  };
}
