/**
 * Kind 1: CDISC ODM 1.3.2 ClinicalData transactions over HTTP, the way Medidata Rave Web Services take them
 * (HTTP Basic with the "user:password" secret; base URL = the server root, {base}/RaveWebServices/… is called).
 *
 * - item list: GET {base}/RaveWebServices/studies/{StudyOID}/datasets/metadata/regular → ODM Study metadata; one
 *   item per ItemRef reached from the Protocol's events (event → FormRef → ItemGroupRef → ItemRef), with the
 *   ItemDef's DataType, the ItemRef's Mandatory, the CodeList's coded values, the FormDef's Repeating.
 * - current values: GET {base}/RaveWebServices/studies/{StudyOID}({Env})/subjects/{SubjectKey}/datasets/regular →
 *   ODM ClinicalData (a 404 or no SubjectData: the target has nothing for the subject).
 * - send: POST {base}/RaveWebServices/webservice.aspx?PostODMClinicalData, one subject per POST: an ODM Transactional
 *   document (written by @esource/interop's odmClinicalChunks) with TransactionType Upsert on SubjectData (required
 *   there in a Transactional file), StudyEventData, FormData, ItemGroupData and ItemData. A form whose target
 *   design has several item groups is sent as one ItemGroupData per group: each item goes to its own group (the
 *   mapping's target group, else the group of the target's form holding it). A multiple choice in a repeating
 *   group is the "select all that apply" pattern: one ItemGroupData per code, repeat keys 1…n (as our own clinical
 *   writer, formItemGroups, and metadata, designToOdmMetadata, lay out a checkbox).
 * - removals (ODM 1.3.2 Transactions; the Rave receiver applies them): a value cleared in our eCRF is ItemData
 *   TransactionType="Remove" (no Value), a form instance deleted here is FormData TransactionType="Remove" (no
 *   children), a multiple choice that lost codes removes its surplus ItemGroupData repeats. ODM makes a Remove of
 *   data that is not there an error, so removals are written only where the record's `atTarget` (the target's
 *   values read just before) shows data — which also makes them idempotent: a repeated sync finds nothing left to
 *   remove and sends nothing. Without `atTarget` a cleared value is written as ItemData Upsert IsNull="Yes".
 *   Repeat keys are written exactly where the def is Repeating (StudyEventRepeatKey = eventRepeat, FormRepeatKey =
 *   formRepeat, ItemGroupRepeatKey 1 or the code's position). SiteRef is the site key.
 *
 * Per-record results from an all-or-nothing POST: RWS refuses a transaction with
 * <Response IsTransactionSuccessful="0" ReasonCode=… ErrorOriginLocation="/ODM/ClinicalData[1]/SubjectData[1]/
 * StudyEventData[i]/FormData[j]/…" ErrorClientResponseMessage=…/> naming the first element it refused. We wrote the
 * document, so the location's StudyEventData/FormData (and ItemGroupData) indices name our record(s); those get
 * ok:false with "message [ReasonCode]". Nothing was applied, so the rest is posted again, until a POST is accepted
 * (each refusal removes at least one record). A refusal at SubjectData level (the subject itself, its site) refuses
 * every record of the subject. A refusal without a usable location makes the remaining records go one per POST,
 * each with its own answer. Each record's result carries the exchange that decided it, its request cut down to the
 * record's own part of the document (its SubjectData within the ClinicalData).
 *
 * The study's metadata is read once per adapter instance (MetaDataVersionOID, repeating defs, item groups).
 */
import { randomUUID } from 'node:crypto';
import {
  clinicalDataStart,
  odmClinicalChunks,
  subjectXml,
  parseOdmClinical,
  parseOdmStudy,
  type OdmEvent,
  type OdmForm,
  type OdmItemGroup,
  type OdmMetaDataVersionDef,
  type OdmParsedSubject,
  type OdmSubject,
  type OdmText,
} from '@esource/interop';
import { EdcTransportError, type EdcAdapter, type EdcExchange, type EdcRecord, type EdcRecordItem, type EdcRecordResult, type EdcSendOutcome, type EdcSettings, type EdcTargetItem } from './adapter';
import { edcFetch, logText, maskSecret, statusError, type EdcHttpResponse } from './edc-http';

interface StudyMeta {
  mdv: OdmMetaDataVersionDef;
  eventRepeating: Map<string, boolean>;
  formRepeating: Map<string, boolean>;
  groupRepeating: Map<string, boolean>;
  /** `${formOid}\u0000${itemOid}` → the form's item group holding the item */
  groupOfItem: Map<string, string>;
}

/** One of our records placed in the document: its StudyEventData and FormData index, and the groups it wrote. */
interface Placed {
  rec: EdcRecord;
  event: number;
  form: number;
  groups: number[];
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) =>
    e.startsWith('#x') || e.startsWith('#X') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : (XML_ENTITIES[e.toLowerCase()] ?? ''),
  );

/** The attributes of RWS's <Response …> element, or null when the text has none. */
export function rwsResponse(text: string): Record<string, string> | null {
  const m = /<Response\b([^>]*)>/.exec(text);
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const a of m[1]!.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/g)) out[a[1]!] = unescapeXml(a[3] ?? a[4] ?? '');
  return out;
}

/** A readable reason from an RWS answer: the Response's message and code, an ODM error's description, or the text. */
function rwsReason(r: EdcHttpResponse, secret: string): string {
  const resp = rwsResponse(r.text);
  if (resp?.ErrorClientResponseMessage) return maskSecret(`${resp.ErrorClientResponseMessage}${resp.ReasonCode ? ` [${resp.ReasonCode}]` : ''}`, secret);
  const odm = /ErrorDescription\s*=\s*"([^"]*)"/.exec(r.text);
  if (odm) return maskSecret(unescapeXml(odm[1]!), secret);
  return maskSecret(r.text.trim().slice(0, 500), secret) || `HTTP ${r.status}`;
}

const textOf = (texts: OdmText[]) => (texts.find((t) => t.lang === 'en') ?? texts.find((t) => t.lang === null) ?? texts[0])?.text.trim();

export class OdmHttpAdapter implements EdcAdapter {
  readonly kind = 1 as const;
  private meta: StudyMeta | null = null;

  constructor(private readonly settings: EdcSettings) {
    if (settings.kind !== 1) throw new Error('OdmHttpAdapter needs kind 1 settings');
    if (!settings.studyOid) throw new Error('kind 1 settings need the study OID at the target');
  }

  private get root(): string {
    return `${this.settings.baseUrl.replace(/\/+$/, '')}/RaveWebServices`;
  }
  private get studyOid(): string {
    return this.settings.studyOid!;
  }
  /** the study in its environment, as ClinicalData and the clinical URLs name it: "Mediflex(Prod)" */
  private get clinicalStudyOid(): string {
    return `${this.studyOid}(${this.settings.environment || 'Prod'})`;
  }

  private async call(method: 'GET' | 'POST', url: string, exchanges: EdcExchange[], body?: string): Promise<EdcHttpResponse> {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(this.settings.secret).toString('base64')}`, accept: 'text/xml, application/xml' };
    if (body !== undefined) headers['content-type'] = 'text/xml; charset=utf-8';
    try {
      const r = await edcFetch({ method, url, headers, ...(body !== undefined ? { body } : {}) }, { secret: this.settings.secret, timeoutMs: this.settings.timeoutMs });
      exchanges.push(r.exchange);
      return r;
    } catch (err) {
      if (err instanceof EdcTransportError && err.exchange) exchanges.push(err.exchange);
      throw err;
    }
  }

  private async metadataXml(exchanges: EdcExchange[]): Promise<string> {
    const r = await this.call('GET', `${this.root}/studies/${encodeURIComponent(this.studyOid)}/datasets/metadata/regular`, exchanges);
    if (r.status !== 200) throw statusError(r, 'RWS study metadata');
    return r.text;
  }

  private async loadMeta(exchanges: EdcExchange[]): Promise<StudyMeta> {
    const xml = await this.metadataXml(exchanges);
    let model;
    try {
      model = parseOdmStudy(xml);
    } catch (err) {
      throw new EdcTransportError('protocol', `RWS study metadata: ${(err as Error).message}`, exchanges[exchanges.length - 1]);
    }
    const study = model.studies.find((s) => s.oid === this.studyOid) ?? model.studies[0];
    const mdv = study?.metaDataVersions[0];
    if (!mdv) throw new EdcTransportError('protocol', 'RWS study metadata: no Study with a MetaDataVersion', exchanges[exchanges.length - 1]);
    const groupOfItem = new Map<string, string>();
    const groups = new Map(mdv.itemGroups.map((g) => [g.oid, g]));
    for (const f of mdv.forms) for (const gr of f.itemGroupRefs) for (const ir of groups.get(gr.oid)?.itemRefs ?? []) if (!groupOfItem.has(`${f.oid}\u0000${ir.oid}`)) groupOfItem.set(`${f.oid}\u0000${ir.oid}`, gr.oid);
    return {
      mdv,
      eventRepeating: new Map(mdv.events.map((e) => [e.oid, e.repeating])),
      formRepeating: new Map(mdv.forms.map((f) => [f.oid, f.repeating])),
      groupRepeating: new Map(mdv.itemGroups.map((g) => [g.oid, g.repeating])),
      groupOfItem,
    };
  }

  private async metaOf(exchanges: EdcExchange[]): Promise<StudyMeta> {
    this.meta ??= await this.loadMeta(exchanges);
    return this.meta;
  }

  async test(): Promise<EdcExchange> {
    const exchanges: EdcExchange[] = [];
    const r = await this.call('GET', `${this.root}/studies`, exchanges);
    if (r.status !== 200) throw statusError(r, 'RWS studies');
    if (!r.text.includes(`OID="${this.clinicalStudyOid}"`) && !r.text.includes(`OID="${this.studyOid}"`))
      throw new EdcTransportError('protocol', `the study ${this.clinicalStudyOid} is not among the studies this user can see`, r.exchange);
    return r.exchange;
  }

  async itemList(): Promise<EdcTargetItem[]> {
    const meta = await this.loadMeta([]);
    this.meta = meta;
    const { mdv } = meta;
    const events = new Map(mdv.events.map((e) => [e.oid, e]));
    const forms = new Map(mdv.forms.map((f) => [f.oid, f]));
    const groups = new Map(mdv.itemGroups.map((g) => [g.oid, g]));
    const items = new Map(mdv.items.map((i) => [i.oid, i]));
    const codeLists = new Map(mdv.codeLists.map((c) => [c.oid, c]));
    const eventOids = mdv.protocol?.eventRefs.map((r) => r.oid) ?? mdv.events.map((e) => e.oid);
    const out: EdcTargetItem[] = [];
    for (const eventOid of eventOids) {
      for (const fr of events.get(eventOid)?.formRefs ?? []) {
        const form = forms.get(fr.oid);
        if (!form) continue;
        for (const gr of form.itemGroupRefs) {
          for (const ir of groups.get(gr.oid)?.itemRefs ?? []) {
            const def = items.get(ir.oid);
            if (!def) continue;
            const cl = def.codeListRef ? codeLists.get(def.codeListRef.oid) : undefined;
            const label = textOf(def.question) || def.name;
            out.push({
              event: eventOid,
              form: form.oid,
              group: gr.oid,
              item: def.oid,
              ...(label ? { label } : {}),
              dataType: def.dataType,
              required: ir.mandatory,
              ...(cl && cl.items.length ? { codes: cl.items.map((c) => ({ value: c.codedValue, ...(textOf(c.decode) ? { label: textOf(c.decode)! } : {}) })) } : {}),
              repeating: form.repeating,
            });
          }
        }
      }
    }
    return out;
  }

  /** The item group an item goes to: its own (the mapping's), the record's, else the target form's group holding it. */
  private groupOf(meta: StudyMeta, rec: EdcRecord, it: EdcRecordItem): string {
    return it.group ?? rec.group ?? meta.groupOfItem.get(`${rec.form}\u0000${it.item}`) ?? '';
  }

  /**
   * What one record writes into its FormData: the Remove of the form, or its ItemGroupData (one per target group,
   * repeats for a multiple choice in a repeating group, Removes where the target holds what we cleared). Null when
   * nothing has to change at the target.
   */
  private plan(meta: StudyMeta, rec: EdcRecord): { removeForm: boolean; groups: OdmItemGroup[] } | null {
    const at = rec.atTarget;
    if (rec.remove === 'form') return at === null ? null : { removeForm: true, groups: [] };
    const clearAll = rec.remove === 'items';
    const groups: OdmItemGroup[] = [];
    const groupFor = (groupOid: string, repeatKey: string | undefined) => {
      let g = groups.find((x) => x.groupOid === groupOid && x.repeatKey === repeatKey && x.transactionType === 'Upsert');
      if (!g) groups.push((g = { groupOid, ...(repeatKey !== undefined ? { repeatKey } : {}), transactionType: 'Upsert', items: [] }));
      return g;
    };
    for (const it of rec.items) {
      const groupOid = this.groupOf(meta, rec, it);
      const repeating = meta.groupRepeating.get(groupOid) ?? false;
      const value = clearAll ? null : it.value;
      // what the target holds: undefined = not read, null = nothing
      const there = at === undefined ? undefined : at === null ? null : (at[it.item] ?? null);
      if (it.multiple && repeating) {
        const codes = (value ?? '').split(',').map((c) => c.trim()).filter(Boolean);
        codes.forEach((code, i) => groupFor(groupOid, String(i + 1)).items.push({ itemOid: it.item, value: code, transactionType: 'Upsert' }));
        const held = (there ?? '').split(',').filter((c) => c.trim()).length;
        for (let i = codes.length + 1; i <= held; i++) groups.push({ groupOid, repeatKey: String(i), transactionType: 'Remove', items: [] });
        continue;
      }
      const g = () => groupFor(groupOid, repeating ? '1' : undefined);
      if (value !== null) g().items.push({ itemOid: it.item, value, transactionType: 'Upsert' });
      else if (there === undefined) g().items.push({ itemOid: it.item, value: null, transactionType: 'Upsert' });
      else if (there !== null) g().items.push({ itemOid: it.item, value: null, transactionType: 'Remove' });
    }
    return groups.length ? { removeForm: false, groups } : null;
  }

  /** The subject's records as one SubjectData and where each record landed in it (records with a plan only). */
  private subjectOf(meta: StudyMeta, subjectKey: string, siteKey: string | undefined, records: EdcRecord[]): { subject: OdmSubject; placed: Placed[] } {
    const events: OdmEvent[] = [];
    const placed: Placed[] = [];
    for (const rec of records) {
      const plan = this.plan(meta, rec);
      if (!plan) continue;
      const eventOid = rec.event ?? '';
      const eventKey = meta.eventRepeating.get(eventOid) ? String(rec.eventRepeat ?? 1) : undefined;
      let ei = events.findIndex((e) => e.eventOid === eventOid && e.repeatKey === eventKey);
      if (ei < 0) ei = events.push({ eventOid, ...(eventKey !== undefined ? { repeatKey: eventKey } : {}), transactionType: 'Upsert', forms: [] }) - 1;
      const ev = events[ei]!;
      const formKey = meta.formRepeating.get(rec.form) ? String(rec.formRepeat ?? 1) : undefined;
      const tt = plan.removeForm ? 'Remove' : 'Upsert';
      // a removed form is a FormData of its own; records of one target form instance share their FormData
      let fi = plan.removeForm ? -1 : ev.forms.findIndex((f) => f.formOid === rec.form && f.repeatKey === formKey && f.transactionType === 'Upsert');
      if (fi < 0) fi = ev.forms.push({ formOid: rec.form, ...(formKey !== undefined ? { repeatKey: formKey } : {}), transactionType: tt, groups: [] }) - 1;
      const form: OdmForm = ev.forms[fi]!;
      const at: number[] = [];
      for (const g of plan.groups) {
        const same = g.transactionType === 'Upsert' ? form.groups.findIndex((x) => x.groupOid === g.groupOid && x.repeatKey === g.repeatKey && x.transactionType === 'Upsert') : -1;
        if (same >= 0) {
          form.groups[same]!.items.push(...g.items);
          at.push(same + 1);
        } else at.push(form.groups.push({ ...g, items: [...g.items] }));
      }
      placed.push({ rec, event: ei + 1, form: fi + 1, groups: at });
    }
    return { subject: { subjectKey, ...(siteKey ? { siteOid: siteKey } : {}), transactionType: 'Upsert', events }, placed };
  }

  /** A record's own part of what is posted: its SubjectData inside the ClinicalData (for the record's log entry). */
  private excerpt(meta: StudyMeta, subjectKey: string, siteKey: string | undefined, rec: EdcRecord): string {
    const { subject } = this.subjectOf(meta, subjectKey, siteKey, [rec]);
    return `${clinicalDataStart({ studyOid: this.clinicalStudyOid, metaDataVersionOid: meta.mdv.oid })}${subjectXml(subject, true)}</ClinicalData>`;
  }

  /** The exchange as this record's log entry shows it: the call's answer, the record's part of the request. */
  private exchangeFor(meta: StudyMeta, subjectKey: string, siteKey: string | undefined, rec: EdcRecord, ex: EdcExchange): EdcExchange {
    return { ...ex, request: logText(this.excerpt(meta, subjectKey, siteKey, rec), this.settings.secret) };
  }

  private async post(meta: StudyMeta, subject: OdmSubject, exchanges: EdcExchange[]): Promise<EdcHttpResponse> {
    let xml = '';
    for await (const chunk of odmClinicalChunks(
      { fileOid: randomUUID(), fileType: 'Transactional', granularity: 'SingleSubject', studyOid: this.clinicalStudyOid, metaDataVersionOid: meta.mdv.oid },
      [subject],
    ))
      xml += chunk;
    const r = await this.call('POST', `${this.root}/webservice.aspx?PostODMClinicalData`, exchanges, xml);
    if (r.status === 200 || r.status === 400 || r.status === 409) return r;
    throw statusError(r, 'RWS PostODMClinicalData');
  }

  private static accepted(r: EdcHttpResponse): boolean {
    return r.status === 200 && rwsResponse(r.text)?.IsTransactionSuccessful === '1';
  }

  /** The records an ErrorOriginLocation names; null when it names none we can tell. */
  private static located(location: string | undefined, placed: Placed[]): Placed[] | null {
    if (!location || !/^\/ODM\/ClinicalData\[1\]\/SubjectData\[1\]/.test(location)) return null;
    const idx = (el: string) => {
      const m = new RegExp(`/${el}\\[(\\d+)\\]`).exec(location);
      return m ? Number(m[1]) : undefined;
    };
    const e = idx('StudyEventData');
    const f = idx('FormData');
    const g = idx('ItemGroupData');
    const hit = placed.filter((p) => (e === undefined || p.event === e) && (f === undefined || p.form === f) && (g === undefined || p.groups.includes(g)));
    return hit.length ? hit : null;
  }

  async send(subjectKey: string, siteKey: string | undefined, records: EdcRecord[]): Promise<EdcSendOutcome> {
    const exchanges: EdcExchange[] = [];
    const results = new Map<string, EdcRecordResult>();
    if (!records.length) return { results: [], exchanges };
    const meta = await this.metaOf(exchanges);
    // records with nothing to change at the target (a removal of what it no longer holds) are answered without a call
    let pending = records.filter((rec) => {
      if (this.plan(meta, rec)) return true;
      results.set(rec.key, { key: rec.key, ok: true, noop: true });
      return false;
    });
    const outcome = (rec: EdcRecord, r: EdcHttpResponse, ok: boolean, reason?: string): EdcRecordResult => ({
      key: rec.key,
      ok,
      ...(reason !== undefined ? { reason } : {}),
      exchange: this.exchangeFor(meta, subjectKey, siteKey, rec, r.exchange),
    });
    let oneByOne = false;
    while (pending.length) {
      if (oneByOne) {
        for (const rec of pending) {
          const r = await this.post(meta, this.subjectOf(meta, subjectKey, siteKey, [rec]).subject, exchanges);
          results.set(rec.key, OdmHttpAdapter.accepted(r) ? outcome(rec, r, true) : outcome(rec, r, false, rwsReason(r, this.settings.secret)));
        }
        break;
      }
      const { subject, placed } = this.subjectOf(meta, subjectKey, siteKey, pending);
      const r = await this.post(meta, subject, exchanges);
      if (OdmHttpAdapter.accepted(r)) {
        for (const rec of pending) results.set(rec.key, outcome(rec, r, true));
        break;
      }
      const reason = rwsReason(r, this.settings.secret);
      const hit = OdmHttpAdapter.located(rwsResponse(r.text)?.ErrorOriginLocation, placed);
      if (!hit) {
        if (pending.length === 1) {
          results.set(pending[0]!.key, outcome(pending[0]!, r, false, reason));
          break;
        }
        oneByOne = true;
        continue;
      }
      for (const p of hit) results.set(p.rec.key, outcome(p.rec, r, false, reason));
      const refused = new Set(hit.map((p) => p.rec.key));
      pending = pending.filter((rec) => !refused.has(rec.key));
    }
    return { results: records.map((rec) => results.get(rec.key) ?? { key: rec.key, ok: false, reason: 'not sent' }), exchanges };
  }

  async current(subjectKey: string, _siteKey: string | undefined, records: EdcRecord[]): Promise<{ values: Map<string, Map<string, string | null>>; exchanges: EdcExchange[] }> {
    const exchanges: EdcExchange[] = [];
    const values = new Map<string, Map<string, string | null>>();
    if (!records.length) return { values, exchanges };
    const meta = await this.metaOf(exchanges);
    const r = await this.call('GET', `${this.root}/studies/${encodeURIComponent(this.clinicalStudyOid)}/subjects/${encodeURIComponent(subjectKey)}/datasets/regular`, exchanges);
    if (r.status === 404) return { values, exchanges };
    if (r.status !== 200) throw statusError(r, 'RWS subject dataset');
    let subject: OdmParsedSubject | undefined;
    try {
      for await (const s of parseOdmClinical(r.text)) if (s.subjectKey === subjectKey) subject = s;
    } catch (err) {
      throw new EdcTransportError('protocol', `RWS subject dataset: ${(err as Error).message}`, r.exchange);
    }
    if (!subject) return { values, exchanges };
    for (const rec of records) {
      const eventKey = meta.eventRepeating.get(rec.event ?? '') ? String(rec.eventRepeat ?? 1) : undefined;
      const formKey = meta.formRepeating.get(rec.form) ? String(rec.formRepeat ?? 1) : undefined;
      const form = subject.events.find((e) => e.eventOid === (rec.event ?? '') && e.repeatKey === eventKey)?.forms.find((f) => f.formOid === rec.form && f.repeatKey === formKey);
      if (!form) continue;
      const vals = new Map<string, string | null>();
      const text = (v: OdmParsedSubject['events'][number]['forms'][number]['groups'][number]['items'][number]['value']) => (v === null ? null : typeof v === 'string' ? v : String(v));
      for (const it of rec.items) {
        const groupOid = this.groupOf(meta, rec, it);
        const inGroup = form.groups.filter((g) => !groupOid || g.groupOid === groupOid);
        if (it.multiple && meta.groupRepeating.get(groupOid)) {
          // one code per repeat of the group, in repeat-key order: the codes joined as the engine compares them
          const codes = [...inGroup]
            .sort((a, b) => Number(a.repeatKey ?? 0) - Number(b.repeatKey ?? 0))
            .flatMap((g) => g.items.filter((x) => x.itemOid === it.item).map((x) => text(x.value)))
            .filter((c): c is string => c !== null && c !== '');
          vals.set(it.item, codes.length ? codes.join(',') : null);
          continue;
        }
        let v: string | null = null;
        for (const g of inGroup) {
          const found = g.items.find((x) => x.itemOid === it.item);
          if (found) v = text(found.value);
        }
        vals.set(it.item, v);
      }
      values.set(rec.key, vals);
    }
    return { values, exchanges };
  }
}
