/**
 * Kind 3: the REDCap API (POST form-encoded to the project's API URL; token; format=json, returnFormat=json).
 *
 * - item list: content=project (longitudinal? repeating?), content=metadata (the data dictionary; its first field
 *   is the record ID field), and for longitudinal projects content=event and content=formEventMapping (one item per
 *   event that holds the field's instrument), content=repeatingFormsEvents for repeating instruments.
 * - current values: content=record (export, type=flat) of the one record (= our subject) with the fields and events
 *   of the records asked about; a record's row is found by redcap_event_name and redcap_repeat_instrument/instance.
 * - send: content=record, action=import, type=flat, one subject per call, overwriteBehavior=normal — or overwrite
 *   when a value is to be cleared (normal ignores blank values; only the fields present in a row are written
 *   either way; a cleared checkbox is every option 0). Our records of one event instance share one row (REDCap's
 *   unit is record × event × instance).
 * - a form instance deleted in our eCRF after it was synced: content=record, action=delete, records[0]=<subject>,
 *   instrument=<form>, and — so that REDCap deletes that instrument's data only, never the record — event (and arm
 *   when the project has several) in longitudinal projects and repeat_instance for a repeating instrument or
 *   event; one call per instance (REDCap takes these parameters as scalars). Used only where REDCap's version
 *   (content=version) is at least REDCAP_DELETE_FORM_SINCE, the parameters being documented there; on an older
 *   REDCap, and for an instrument that also holds another of our forms (`remove: 'items'`), the form's fields are
 *   cleared instead (blank values with overwrite; the instrument's form status stays). Nothing is sent when
 *   `atTarget` shows the target no longer holds the instance.
 *
 * Per-record results from an all-or-nothing import: REDCap refuses the whole call (HTTP 400) with
 * `{"error": …}` whose text is either one whole-call sentence ("The following fields were not found in the
 * project as real data fields: a, b", "The following values of redcap_event_name are invalid: x") or one CSV line
 * per bad value: "record","field","value","message". Each line is mapped back to our records by its field — the
 * record ID field refuses every record, redcap_event_name / redcap_repeat_instrument / redcap_repeat_instance those
 * of that event or instance, a checkbox column (field___code) its field, any other field the records that sent it
 * (narrowed by the value when several did) — and those records get ok:false with the lines as their reason. Nothing
 * was written, so the rest is sent again in a new call; this repeats until a call is accepted (each refused call
 * removes at least one record). When a refusal cannot be mapped (a line naming another record or an unknown
 * column, or a text of another shape), the remaining records are sent one per call and each gets its own answer.
 *
 * Each record's result carries the exchange that decided it: the request cut down to the record's own row and
 * columns, and for a refusal in CSV lines the lines about the record.
 *
 * The target's project definition (metadata, events, repeating setup) is read once per adapter instance, the
 * first time send or current needs it; create one adapter per sync run to see the target's changes.
 */
import { EdcTransportError, type EdcAdapter, type EdcExchange, type EdcRecord, type EdcRecordResult, type EdcSendOutcome, type EdcSettings, type EdcTargetItem } from './adapter';
import { edcFetch, logText, maskSecret, statusError, type EdcHttpResponse } from './edc-http';
import {
  checkboxColumn,
  completeField,
  parseRedcapChoices,
  redcapCodes,
  redcapDataType,
  REDCAP_EVENT,
  REDCAP_NOT_IMPORTABLE,
  REDCAP_REPEAT_INSTANCE,
  REDCAP_REPEAT_INSTRUMENT,
  type RedcapEvent,
  type RedcapField,
  type RedcapFormEvent,
  type RedcapRepeating,
} from './redcap-model';

interface RedcapProject {
  recordIdField: string;
  metadata: RedcapField[];
  fields: Map<string, RedcapField>;
  longitudinal: boolean;
  events: RedcapEvent[];
  formEvents: RedcapFormEvent[];
  /** `${event}\u0000${form}` of repeating instruments ('' as event in classic projects) */
  repeatingForms: Set<string>;
  /** unique event names of repeating events */
  repeatingEvents: Set<string>;
}

/** Where one of our records lands: the row (record × event × instance) and the columns it fills. */
interface Placement {
  rec: EdcRecord;
  event: string | undefined;
  instrument: string;
  instance: string | undefined;
  /** column → value sent ('' clears with overwrite) */
  columns: Map<string, string>;
}

type Json = Record<string, unknown>;

/** The first REDCap version whose Delete Records documents instrument, event and repeat_instance (see the file comment). */
export const REDCAP_DELETE_FORM_SINCE = [14, 0, 0] as const;

/** Whether a REDCap version text ("14.5.0") is at least `since`. */
export function redcapVersionAtLeast(version: string, since: readonly number[]): boolean {
  const m = /^\s*(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) if (v[i]! !== since[i]!) return v[i]! > since[i]!;
  return true;
}
const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;
/** A call's parameters as the log shows them: readable, the token masked. */
const logBodyOf = (params: [string, string][]) => [['token', '***'], ...params].map(([k, v]) => `${k}=${v}`).join('&');

/**
 * Our canonical datetime (YYYY-MM-DDTHH:MM:SS, as the mapping produces it) in the form REDCap imports for the
 * field's validation ("YYYY-MM-DD HH:MM", with seconds for datetime_seconds_*), and back, so that a value read from
 * REDCap compares equal to what was sent. Anything else passes unchanged (REDCap judges it).
 */
export function toRedcapValue(f: RedcapField | undefined, v: string): string {
  const validation = f?.field_type === 'text' ? (f.text_validation_type_or_show_slider_number ?? '') : '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?$/.exec(v);
  if (!m) return v;
  if (/^datetime_seconds_/.test(validation)) return `${m[1]} ${m[2]}${m[3] ?? ':00'}`;
  if (/^datetime_/.test(validation)) return `${m[1]} ${m[2]}`;
  return v;
}
export function fromRedcapValue(f: RedcapField | undefined, v: string): string {
  const validation = f?.field_type === 'text' ? (f.text_validation_type_or_show_slider_number ?? '') : '';
  if (!/^datetime_/.test(validation)) return v;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})(:\d{2})?$/.exec(v);
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : v;
}
const pair = (event: string, form: string) => `${event}\u0000${form}`;
const stripHtml = (s: string) => s.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim();

/** Splits REDCap's error CSV ("a","b","c","d" per line; "" escapes a quote; a quoted value may span lines). */
export function parseRedcapErrorLines(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else cell += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((x) => x !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
    i++;
  }
  row.push(cell);
  if (row.some((x) => x !== '')) rows.push(row);
  return rows;
}

/** The error text of a REDCap answer ({"error": "…"} with returnFormat=json; the raw text otherwise). */
function errorText(r: EdcHttpResponse): { text: string; fields: string[] } {
  try {
    const body = JSON.parse(r.text) as unknown;
    if (body && typeof body === 'object' && typeof (body as Json).error === 'string') {
      const fields = Array.isArray((body as Json).fields) ? ((body as Json).fields as unknown[]).map(String) : [];
      return { text: (body as Json).error as string, fields };
    }
  } catch {
    // not JSON: the text as it came
  }
  return { text: r.text.trim(), fields: [] };
}

export class RedcapAdapter implements EdcAdapter {
  readonly kind = 3 as const;
  private project: RedcapProject | null = null;
  private version: string | null = null;

  constructor(private readonly settings: EdcSettings) {
    if (settings.kind !== 3) throw new Error('RedcapAdapter needs kind 3 settings');
  }

  /** One API call: form-encoded, the token first; the logged body shows the parameters readably, token masked. */
  private async call(params: [string, string][], exchanges: EdcExchange[]): Promise<EdcHttpResponse> {
    const all: [string, string][] = [['token', this.settings.secret], ...params];
    const body = new URLSearchParams(all).toString();
    const logBody = logBodyOf(params);
    try {
      const r = await edcFetch(
        { method: 'POST', url: this.settings.baseUrl, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body, logBody },
        { secret: this.settings.secret, timeoutMs: this.settings.timeoutMs },
      );
      exchanges.push(r.exchange);
      return r;
    } catch (err) {
      if (err instanceof EdcTransportError && err.exchange) exchanges.push(err.exchange);
      throw err;
    }
  }

  /** An export call that must answer 200 with JSON. */
  private async exportJson(content: string, extra: [string, string][], exchanges: EdcExchange[]): Promise<unknown> {
    const r = await this.call([['content', content], ['format', 'json'], ...extra, ['returnFormat', 'json']], exchanges);
    if (r.status !== 200) throw statusError(r, `REDCap export ${content}`);
    try {
      return JSON.parse(r.text) as unknown;
    } catch {
      throw new EdcTransportError('protocol', `REDCap export ${content}: the answer is not JSON`, r.exchange);
    }
  }

  private async exportRows<T>(content: string, exchanges: EdcExchange[], extra: [string, string][] = []): Promise<T[]> {
    const body = await this.exportJson(content, extra, exchanges);
    if (!Array.isArray(body)) throw new EdcTransportError('protocol', `REDCap export ${content}: expected a JSON array`, exchanges[exchanges.length - 1]);
    return body as T[];
  }

  private async loadProject(exchanges: EdcExchange[]): Promise<RedcapProject> {
    const info = (await this.exportJson('project', [], exchanges)) as Json;
    const flag = (v: unknown) => v === 1 || v === '1' || v === true;
    const longitudinal = flag(info.is_longitudinal);
    const hasRepeating = flag(info.has_repeating_instruments_or_events);
    const metadata = await this.exportRows<RedcapField>('metadata', exchanges);
    if (!metadata.length) throw new EdcTransportError('protocol', 'REDCap metadata is empty', exchanges[exchanges.length - 1]);
    const events = longitudinal ? await this.exportRows<RedcapEvent>('event', exchanges) : [];
    const formEvents = longitudinal ? await this.exportRows<RedcapFormEvent>('formEventMapping', exchanges) : [];
    const repeating = hasRepeating ? await this.exportRows<RedcapRepeating>('repeatingFormsEvents', exchanges) : [];
    const repeatingForms = new Set<string>();
    const repeatingEvents = new Set<string>();
    for (const r of repeating) {
      if (r.form_name) repeatingForms.add(pair(longitudinal ? (r.event_name ?? '') : '', r.form_name));
      else if (r.event_name) repeatingEvents.add(r.event_name);
    }
    return {
      recordIdField: metadata[0]!.field_name,
      metadata,
      fields: new Map(metadata.map((f) => [f.field_name, f])),
      longitudinal,
      events,
      formEvents,
      repeatingForms,
      repeatingEvents,
    };
  }

  private async projectOf(exchanges: EdcExchange[]): Promise<RedcapProject> {
    this.project ??= await this.loadProject(exchanges);
    return this.project;
  }

  async test(): Promise<EdcExchange> {
    const exchanges: EdcExchange[] = [];
    await this.exportJson('project', [], exchanges);
    return exchanges[0]!;
  }

  async itemList(): Promise<EdcTargetItem[]> {
    const p = await this.loadProject([]);
    this.project = p;
    const out: EdcTargetItem[] = [];
    for (const f of p.metadata) {
      if (f.field_name === p.recordIdField || REDCAP_NOT_IMPORTABLE.has(f.field_type)) continue;
      const codes = redcapCodes(f);
      const base = {
        form: f.form_name,
        item: f.field_name,
        ...(f.field_label ? { label: stripHtml(f.field_label) } : {}),
        dataType: redcapDataType(f),
        required: f.required_field === 'y',
        ...(codes.length ? { codes } : {}),
      };
      if (!p.longitudinal) {
        out.push({ ...base, repeating: p.repeatingForms.has(pair('', f.form_name)) });
        continue;
      }
      for (const fe of p.formEvents) {
        if (fe.form === f.form_name) out.push({ event: fe.unique_event_name, ...base, repeating: p.repeatingForms.has(pair(fe.unique_event_name, f.form_name)) });
      }
    }
    return out;
  }

  /** The row of a record: event (longitudinal), and the repeat instrument/instance when the form or event repeats. */
  private placement(p: RedcapProject, rec: EdcRecord): Placement {
    const event = p.longitudinal ? rec.event : undefined;
    let instrument = '';
    let instance: string | undefined;
    if (p.repeatingForms.has(pair(event ?? '', rec.form))) {
      instrument = rec.form;
      instance = String(rec.formRepeat ?? 1);
    } else if (event && p.repeatingEvents.has(event)) instance = String(rec.eventRepeat ?? 1);
    const columns = new Map<string, string>();
    const clearAll = !!rec.remove;
    for (const it of rec.items) {
      const f = p.fields.get(it.item);
      const value = clearAll ? null : it.value;
      if (f?.field_type === 'checkbox') {
        // a checkbox is one column per option: the listed codes checked, every other option unchecked
        const checked = new Set((value ?? '').split(',').map((c) => c.trim()).filter(Boolean));
        for (const c of parseRedcapChoices(f.select_choices_or_calculations)) columns.set(checkboxColumn(f.field_name, c.value), checked.has(c.value) ? '1' : '0');
        for (const c of checked) if (!parseRedcapChoices(f.select_choices_or_calculations).some((x) => x.value === c)) columns.set(checkboxColumn(f.field_name, c), '1');
      } else columns.set(it.item, value === null ? '' : toRedcapValue(f, value));
    }
    return { rec, event, instrument, instance, columns };
  }

  /** The flat rows of one import call: records of the same row merged, keys in REDCap's column order. */
  private rows(p: RedcapProject, subjectKey: string, placements: Placement[]): Json[] {
    const byRow = new Map<string, Json>();
    for (const pl of placements) {
      const k = JSON.stringify([pl.event ?? null, pl.instrument, pl.instance ?? null]);
      let row = byRow.get(k);
      if (!row) {
        row = { [p.recordIdField]: subjectKey };
        if (pl.event !== undefined) row[REDCAP_EVENT] = pl.event;
        if (pl.instance !== undefined) {
          row[REDCAP_REPEAT_INSTRUMENT] = pl.instrument;
          row[REDCAP_REPEAT_INSTANCE] = pl.instance;
        }
        byRow.set(k, row);
      }
      for (const [c, v] of pl.columns) row[c] = v;
    }
    return [...byRow.values()];
  }

  /** The parameters of an import call of these placements but the token. */
  private importParams(p: RedcapProject, subjectKey: string, placements: Placement[]): [string, string][] {
    return [
      ['content', 'record'],
      ['action', 'import'],
      ['format', 'json'],
      ['type', 'flat'],
      ['overwriteBehavior', RedcapAdapter.clears(p, placements) ? 'overwrite' : 'normal'],
      ['forceAutoNumber', 'false'],
      ['data', JSON.stringify(this.rows(p, subjectKey, placements))],
      ['returnContent', 'count'],
      ['returnFormat', 'json'],
    ];
  }

  /** Whether an import of these placements clears a value (needs overwriteBehavior=overwrite). */
  private static clears(p: RedcapProject, placements: Placement[]): boolean {
    return placements.some((pl) => pl.rec.items.some((it) => (it.value === null || !!pl.rec.remove) && p.fields.get(it.item)?.field_type !== 'checkbox'));
  }

  /** A record's part of an import call, as its log entry shows the request: the call as if it held its row only. */
  private importExcerpt(p: RedcapProject, subjectKey: string, pl: Placement): string {
    return logText(logBodyOf(this.importParams(p, subjectKey, [pl])), this.settings.secret);
  }

  private async importCall(p: RedcapProject, subjectKey: string, placements: Placement[], exchanges: EdcExchange[]): Promise<EdcHttpResponse> {
    const r = await this.call(this.importParams(p, subjectKey, placements), exchanges);
    if (r.status === 200) {
      let ok = false;
      try {
        const body = JSON.parse(r.text) as unknown;
        ok = !!body && typeof body === 'object' && typeof (body as Json).count !== 'undefined';
      } catch {
        ok = false;
      }
      if (!ok) throw new EdcTransportError('protocol', 'REDCap import: HTTP 200 without {"count": …}', r.exchange);
      return r;
    }
    if (r.status !== 400) throw statusError(r, 'REDCap import');
    return r;
  }

  /**
   * Maps a refused import's error text to our records. `refused` holds the reasons per record key; `unmapped` is
   * true when some of the text could not be tied to a record.
   */
  private mapRefusal(
    p: RedcapProject,
    subjectKey: string,
    placements: Placement[],
    r: EdcHttpResponse,
  ): { refused: Map<string, string[]>; lines: Map<string, string[]>; unmapped: boolean } {
    const refused = new Map<string, string[]>();
    // the answer's CSV lines about each record, as REDCap wrote them (its log entry's answer)
    const lines = new Map<string, string[]>();
    const add = (pls: Placement[], reason: string, line?: string) => {
      for (const pl of pls) {
        const list = refused.get(pl.rec.key) ?? [];
        if (!list.includes(reason)) refused.set(pl.rec.key, [...list, reason]);
        if (line !== undefined) lines.set(pl.rec.key, [...(lines.get(pl.rec.key) ?? []), line]);
      }
    };
    const { text, fields } = errorText(r);
    const secret = this.settings.secret;
    const sendingColumn = (col: string) => placements.filter((pl) => pl.columns.has(col));
    const notFound = /^The following fields were not found in the project as real data fields:?\s*(.*)$/i.exec(text.split('\n')[0]!.trim());
    if (notFound) {
      const names = [...fields, ...(notFound[1] ?? '').split(',').map((s) => s.trim())].filter(Boolean);
      const hit = placements.filter((pl) => names.some((n) => pl.columns.has(n)));
      add(hit, maskSecret(text, secret));
      return { refused, lines, unmapped: hit.length === 0 };
    }
    const badEvents = /^The following values of redcap_event_name are invalid:\s*(.*)$/i.exec(text.trim());
    if (badEvents) {
      const names = badEvents[1]!.split(',').map((s) => s.trim());
      const hit = placements.filter((pl) => pl.event !== undefined && names.includes(pl.event));
      add(hit, maskSecret(text, secret));
      return { refused, lines, unmapped: hit.length === 0 };
    }
    const csv = parseRedcapErrorLines(text);
    if (!csv.length || csv.some((l) => l.length < 4)) return { refused, lines, unmapped: true };
    let unmapped = false;
    for (const line of csv) {
      const [record, field, value, ...rest] = line;
      const message = maskSecret(rest.join(','), secret);
      const reason = `${field} = "${value}": ${message}`;
      if (record !== subjectKey) {
        unmapped = true;
        continue;
      }
      let hit: Placement[];
      if (field === p.recordIdField) hit = placements;
      else if (field === REDCAP_EVENT) hit = placements.filter((pl) => pl.event === value);
      else if (field === REDCAP_REPEAT_INSTRUMENT) hit = placements.filter((pl) => pl.instrument === value);
      else if (field === REDCAP_REPEAT_INSTANCE) hit = placements.filter((pl) => pl.instance === value);
      else {
        hit = sendingColumn(field!);
        if (hit.length > 1) {
          const same = hit.filter((pl) => pl.columns.get(field!) === value);
          if (same.length) hit = same;
        }
        if (!hit.length) {
          // the {form}_complete status, or a field REDCap names without its checkbox suffix
          hit = placements.filter((pl) => completeField(pl.rec.form) === field || [...pl.columns.keys()].some((c) => c.startsWith(`${field}___`)));
        }
      }
      if (hit.length) add(hit, reason, maskSecret(line.map(csvCell).join(','), secret));
      else unmapped = true;
    }
    return { refused, lines, unmapped };
  }

  async send(subjectKey: string, _siteKey: string | undefined, records: EdcRecord[]): Promise<EdcSendOutcome> {
    const exchanges: EdcExchange[] = [];
    const results = new Map<string, EdcRecordResult>();
    if (!records.length) return { results: [], exchanges };
    const p = await this.projectOf(exchanges);
    // removals of what the target no longer holds need no call
    const live = records.filter((rec) => {
      if (rec.remove && rec.atTarget === null) {
        results.set(rec.key, { key: rec.key, ok: true, noop: true });
        return false;
      }
      return true;
    });
    // a removed form instance is deleted by its own call where REDCap documents the instrument-level delete
    const forms = live.filter((rec) => rec.remove === 'form');
    const deleteForms = forms.length > 0 && (await this.deletesForms(exchanges));
    const deletions = deleteForms ? forms : [];
    const secret = this.settings.secret;
    const answer = (r: EdcHttpResponse, pl: Placement, lines?: string[]): EdcExchange => ({
      ...r.exchange,
      request: this.importExcerpt(p, subjectKey, pl),
      ...(lines?.length ? { response: logText(lines.join('\n'), secret) } : {}),
    });
    let pending = live.filter((rec) => !deletions.includes(rec)).map((rec) => this.placement(p, rec));
    let oneByOne = false;
    while (pending.length) {
      if (oneByOne) {
        for (const pl of pending) {
          const r = await this.importCall(p, subjectKey, [pl], exchanges);
          results.set(
            pl.rec.key,
            r.status === 200
              ? { key: pl.rec.key, ok: true, exchange: answer(r, pl) }
              : { key: pl.rec.key, ok: false, reason: maskSecret(errorText(r).text, secret) || `HTTP ${r.status}`, exchange: answer(r, pl) },
          );
        }
        break;
      }
      const r = await this.importCall(p, subjectKey, pending, exchanges);
      if (r.status === 200) {
        for (const pl of pending) results.set(pl.rec.key, { key: pl.rec.key, ok: true, exchange: answer(r, pl) });
        break;
      }
      const { refused, lines, unmapped } = this.mapRefusal(p, subjectKey, pending, r);
      for (const [key, reasons] of refused) {
        const pl = pending.find((x) => x.rec.key === key)!;
        results.set(key, { key, ok: false, reason: reasons.join('; '), exchange: answer(r, pl, lines.get(key)) });
      }
      pending = pending.filter((pl) => !refused.has(pl.rec.key));
      if (unmapped || !refused.size) {
        if (pending.length === 1) {
          const only = pending[0]!;
          results.set(only.rec.key, { key: only.rec.key, ok: false, reason: maskSecret(errorText(r).text, secret) || `HTTP ${r.status}`, exchange: answer(r, only) });
          break;
        }
        oneByOne = true;
      }
    }
    for (const rec of deletions) {
      const pl = this.placement(p, rec);
      const r = await this.deleteCall(p, subjectKey, pl, exchanges);
      results.set(rec.key, r.status === 200 ? { key: rec.key, ok: true, exchange: r.exchange } : { key: rec.key, ok: false, reason: maskSecret(errorText(r).text, secret) || `HTTP ${r.status}`, exchange: r.exchange });
    }
    return { results: records.map((rec) => results.get(rec.key) ?? { key: rec.key, ok: false, reason: 'not sent' }), exchanges };
  }

  /** Whether this REDCap documents the instrument-level Delete Records (read once per adapter instance). */
  private async deletesForms(exchanges: EdcExchange[]): Promise<boolean> {
    if (this.version === null) {
      const r = await this.call([['content', 'version'], ['format', 'json'], ['returnFormat', 'json']], exchanges);
      if (r.status !== 200) throw statusError(r, 'REDCap export version');
      this.version = r.text.trim().replace(/^"|"$/g, '');
    }
    return redcapVersionAtLeast(this.version, REDCAP_DELETE_FORM_SINCE);
  }

  /**
   * Deletes one form instance's data: the record, its instrument, and the event (with the arm when the project has
   * several) and repeat instance that keep REDCap from deleting more than the instance. A 400 is a refusal of the
   * record; a 200 must answer the number of records (REDCap's answer to a delete).
   */
  private async deleteCall(p: RedcapProject, subjectKey: string, pl: Placement, exchanges: EdcExchange[]): Promise<EdcHttpResponse> {
    const params: [string, string][] = [
      ['content', 'record'],
      ['action', 'delete'],
      ['records[0]', subjectKey],
    ];
    if (p.longitudinal && pl.event !== undefined) {
      const arms = new Set(p.events.map((e) => e.arm_num));
      const arm = p.events.find((e) => e.unique_event_name === pl.event)?.arm_num;
      if (arms.size > 1 && arm !== undefined) params.push(['arm', String(arm)]);
      params.push(['event', pl.event]);
    }
    params.push(['instrument', pl.rec.form]);
    if (pl.instance !== undefined) params.push(['repeat_instance', pl.instance]);
    params.push(['returnFormat', 'json']);
    const r = await this.call(params, exchanges);
    if (r.status === 200) {
      if (!/^\s*"?\d+"?\s*$/.test(r.text)) throw new EdcTransportError('protocol', 'REDCap delete: HTTP 200 without the number of records deleted', r.exchange);
      return r;
    }
    if (r.status !== 400) throw statusError(r, 'REDCap delete');
    return r;
  }

  async current(subjectKey: string, _siteKey: string | undefined, records: EdcRecord[]): Promise<{ values: Map<string, Map<string, string | null>>; exchanges: EdcExchange[] }> {
    const exchanges: EdcExchange[] = [];
    const values = new Map<string, Map<string, string | null>>();
    if (!records.length) return { values, exchanges };
    const p = await this.projectOf(exchanges);
    // only names the project knows: REDCap refuses the whole export for one unknown field or event
    const fields = new Set<string>([p.recordIdField]);
    const forms = new Set(p.metadata.map((f) => f.form_name));
    for (const rec of records) {
      for (const it of rec.items) if (p.fields.has(it.item)) fields.add(it.item);
      if (forms.has(rec.form)) fields.add(completeField(rec.form));
    }
    const knownEvents = new Set(p.events.map((e) => e.unique_event_name));
    const events = p.longitudinal ? [...new Set(records.map((r) => r.event).filter((e): e is string => !!e && knownEvents.has(e)))] : [];
    const params: [string, string][] = [
      ['action', 'export'],
      ['type', 'flat'],
      ['records[0]', subjectKey],
      ...[...fields].map((f, i): [string, string] => [`fields[${i}]`, f]),
      ...events.map((e, i): [string, string] => [`events[${i}]`, e]),
      ['rawOrLabel', 'raw'],
      ['rawOrLabelHeaders', 'raw'],
      ['exportCheckboxLabel', 'false'],
      ['exportSurveyFields', 'false'],
      ['exportDataAccessGroups', 'false'],
    ];
    const rows = await this.exportRows<Json>('record', exchanges, params);
    const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
    for (const rec of records) {
      const pl = this.placement(p, rec);
      const row = rows.find(
        (r) =>
          str(r[p.recordIdField]) === subjectKey &&
          (pl.event === undefined || str(r[REDCAP_EVENT]) === pl.event) &&
          str(r[REDCAP_REPEAT_INSTRUMENT]) === pl.instrument &&
          str(r[REDCAP_REPEAT_INSTANCE]) === (pl.instance ?? ''),
      );
      if (!row) continue;
      const vals = new Map<string, string | null>();
      for (const it of rec.items) {
        const f = p.fields.get(it.item);
        if (f?.field_type === 'checkbox') {
          const checked = parseRedcapChoices(f.select_choices_or_calculations)
            .filter((c) => str(row[checkboxColumn(f.field_name, c.value)]) === '1')
            .map((c) => c.value);
          vals.set(it.item, checked.length ? checked.join(',') : null);
        } else {
          const v = str(row[it.item]);
          vals.set(it.item, v === '' ? null : fromRedcapValue(f, v));
        }
      }
      const present = [...vals.values()].some((v) => v !== null) || str(row[completeField(rec.form)]) !== '';
      if (present) values.set(rec.key, vals);
    }
    return { values, exchanges };
  }
}
