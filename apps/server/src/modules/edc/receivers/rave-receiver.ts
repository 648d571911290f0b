/**
 * A strict Medidata Rave Web Services receiver (kind 1) for tests and the demo: a real HTTP server that takes ODM
 * 1.3.2 Transactional ClinicalData the way RWS does and keeps what it accepted, for one study defined by an ODM
 * metadata document (Rave's own, or our design through designToOdmMetadata).
 *
 *   GET  /RaveWebServices/version                                        text, no auth
 *   GET  /RaveWebServices/studies                                        the studies the user sees (ODM)
 *   GET  /RaveWebServices/studies/{Study}/datasets/metadata/regular      the metadata document
 *   GET  /RaveWebServices/studies/{Study}({Env})/subjects/{Key}/datasets/regular   the subject's data (ODM Snapshot)
 *   POST /RaveWebServices/webservice.aspx?PostODMClinicalData            ODM Transactional → <Response …/>
 *
 * Auth is HTTP Basic: no header → 401 "Authorization Header not provided"; wrong user or password → 401 with RWS's
 * ODM error ("Incorrect login and password combination. [RWS00008]"). A post is one transaction, all-or-nothing, and
 * is refused (HTTP 400, <Response IsTransactionSuccessful="0" ReasonCode=… ErrorOriginLocation=…
 * ErrorClientResponseMessage=…/>, the first problem in document order) unless: it is valid against the ODM 1.3.2 XSD
 * set (validateOdm); FileType is Transactional; every SubjectData has a TransactionType (ODM: a top-level data
 * element's TransactionType must be explicit); descendants of a Remove are Remove or inherit; the StudyOID is the
 * study in this environment and the MetaDataVersionOID its metadata version ("CRF version not found. [RWS00092]");
 * every StudyEventOID / FormOID / ItemGroupOID / ItemOID is defined and referenced by its parent's def (event in the
 * Protocol, form in the event, group in the form, item in the group); repeat keys are given exactly for Repeating
 * defs; values fit the ItemDef's DataType (integer, float, date, time, datetime, partial dates, boolean, text/string
 * with Length, SignificantDigits) and CodeList; the transaction types hold (Insert of an existing entity, Update /
 * Remove of a missing one are refused; "Subject already exists. [RWS00024]"); a new subject names a known site.
 * A Remove of a SubjectData, StudyEventData, FormData or ItemGroupData without children removes that entity with
 * everything in it, a Remove of an ItemData its value (no Value needed); each removal an accepted post applied is
 * listed in `removals`.
 * Accepted: HTTP 200 <Response IsTransactionSuccessful="1" SuccessStatistics="Rave objects touched: Subjects=…;
 * Folders=…; Forms=…; Fields=…; LogLines=…"/>, counting what actually changed — a repeated Upsert touches nothing.
 *
 * Reason codes other than RWS00008, RWS00024 and RWS00092 are this receiver's (Rave's list is not public); the
 * response format is RWS's (as rwslib parses it).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import {
  odmClinicalChunks,
  parseOdmClinical,
  parseOdmStudy,
  validateOdm,
  type OdmCodeListDef,
  type OdmEventDef,
  type OdmFormDef,
  type OdmItemDef,
  type OdmItemGroupDef,
  type OdmMetaDataVersionDef,
  type OdmParsedSubject,
  type OdmSubject,
  type OdmTransactionType,
} from '@esource/interop';
import { refusalFor, startReceiverServer, type ReceivedRequest, type ReceiverFault, type Refusal, type Reply } from './receiver-kit';

export interface RaveReceiverOptions {
  /** an ODM document with the study's Study / MetaDataVersion (the first of each is used) */
  metadataXml: string;
  /** Rave's environment of the study (its ClinicalData StudyOID is "Study(Env)"); default Prod */
  environment?: string;
  /** the one valid user and password */
  user: string;
  password: string;
  /** the site LocationOIDs subjects may be created at; any when absent */
  sites?: string[];
  port?: number;
  host?: string;
}

/** Where a stored value is (repeat keys as sent; omit for non-repeating defs). */
export interface RavePath {
  event: string;
  eventRepeat?: string;
  form: string;
  formRepeat?: string;
  group: string;
  groupRepeat?: string;
}

/** A removal an accepted post applied (TransactionType Remove): the subject, an event, a form, a group or an item. */
export interface RaveRemoval {
  subject: string;
  level: 'subject' | 'event' | 'form' | 'group' | 'item';
  event?: string;
  eventRepeat?: string;
  form?: string;
  formRepeat?: string;
  group?: string;
  groupRepeat?: string;
  item?: string;
}

export interface RaveReceiver {
  /** the server's root, what a kind-1 EDC setting's baseUrl is ({origin}/RaveWebServices/… is served) */
  url: string;
  studyOid: string;
  environment: string;
  requests: ReceivedRequest[];
  /** item values changed by accepted posts (a repeated post adds none) */
  readonly changes: number;
  /** accepted posts */
  readonly posts: number;
  /** every removal accepted posts applied, in order */
  readonly removals: RaveRemoval[];
  /** the user of the last request whose credentials were accepted (the log holds no Authorization); null before */
  readonly lastUser: string | null;
  /** refusals the receiver gives (fault injection): a whole subject, or an item's values */
  refusals: Refusal[];
  setFault: (fault: ReceiverFault | null) => void;
  /** a value changed at the target by a person (no request; not counted in `changes`) */
  setValue(subject: string, path: RavePath, item: string, value: string | null): void;
  /** the stored value (null for IsNull), or undefined when the item has none */
  value(subject: string, path: RavePath, item: string): string | null | undefined;
  /** the stored data as canonical JSON, to compare the target before and after */
  snapshot(): string;
  close: () => Promise<void>;
}

type Items = Map<string, string | null>;
type Groups = Map<string, Items>;
type Forms = Map<string, Groups>;
type Events = Map<string, Forms>;
interface StoredSubject {
  site: string | undefined;
  events: Events;
}

class PostRefusal extends Error {
  constructor(
    readonly code: string,
    readonly location: string,
    message: string,
  ) {
    super(message);
  }
}

const key = (oid: string, repeat: string | number | undefined) => `${oid}\u0000${repeat ?? ''}`;
const unkey = (k: string): [string, string | undefined] => {
  const [oid, repeat] = k.split('\u0000') as [string, string];
  return [oid, repeat === '' ? undefined : repeat];
};
const xmlAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// ── ODM DataType checks (ODM 1.3.2 §2.13 data formats) ──
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
function isDate(v: string): boolean {
  const m = DATE.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}
const FLOAT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Why a value does not fit its ItemDef (null when it does). */
function valueProblem(def: OdmItemDef, codeList: OdmCodeListDef | undefined, v: string): string | null {
  const t = def.dataType;
  switch (t) {
    case 'integer':
      if (!/^[-+]?\d+$/.test(v)) return `"${v}" is not an integer`;
      if (def.length && v.replace(/^[-+]/, '').length > def.length) return `"${v}" has more than ${def.length} digits`;
      break;
    case 'float':
    case 'double': {
      if (!FLOAT.test(v)) return `"${v}" is not a number`;
      const decimals = /\.(\d+)/.exec(v)?.[1]?.length ?? 0;
      if (def.significantDigits !== undefined && decimals > def.significantDigits) return `"${v}" has more than ${def.significantDigits} decimal places`;
      break;
    }
    case 'date':
      if (!isDate(v)) return `"${v}" is not a date (YYYY-MM-DD)`;
      break;
    case 'time':
      if (!TIME.test(v)) return `"${v}" is not a time (hh:mm:ss)`;
      break;
    case 'datetime':
      if (!(isDate(v.slice(0, 10)) && v[10] === 'T' && TIME.test(v.slice(11)))) return `"${v}" is not a datetime (YYYY-MM-DDThh:mm:ss)`;
      break;
    case 'partialDate':
      if (!/^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/.test(v)) return `"${v}" is not a partial date`;
      break;
    case 'partialTime':
      if (!/^([01]\d|2[0-3])(:[0-5]\d(:[0-5]\d(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?$/.test(v)) return `"${v}" is not a partial time`;
      break;
    case 'partialDatetime':
      if (!/^\d{4}(-\d{2}(-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?)?)?)?(Z|[+-]\d{2}:\d{2})?$/.test(v)) return `"${v}" is not a partial datetime`;
      break;
    case 'boolean':
      if (!/^(true|false|1|0)$/.test(v)) return `"${v}" is not a boolean`;
      break;
    case 'text':
    case 'string':
      if (def.length !== undefined && Array.from(v).length > def.length) return `the text is longer than ${def.length} characters`;
      break;
    default:
      break;
  }
  if (codeList && !codeList.external && !codeList.items.some((c) => c.codedValue === v)) return `"${v}" is not in the code list ${codeList.oid}`;
  return null;
}

function odmError(status: number, description: string): Reply {
  return {
    status,
    contentType: 'text/xml; charset=utf-8',
    body:
      `<?xml version="1.0" encoding="utf-8"?>\n<ODM xmlns:mdsol="http://www.mdsol.com/ns/odm/metadata" FileType="Snapshot" CreationDateTime="${new Date().toISOString()}" ` +
      `FileOID="${randomUUID()}" ODMVersion="1.3" mdsol:ErrorDescription="${xmlAttr(description)}" xmlns="http://www.cdisc.org/ns/odm/v1.3" />`,
  };
}

export async function startRaveReceiver(opts: RaveReceiverOptions): Promise<RaveReceiver> {
  const model = parseOdmStudy(opts.metadataXml);
  const study = model.studies[0];
  const mdv: OdmMetaDataVersionDef | undefined = study?.metaDataVersions[0];
  if (!study || !mdv) throw new Error('the metadata document has no Study with a MetaDataVersion');
  if (model.problems.length) throw new Error(`the metadata document references undefined OIDs: ${model.problems.map((p) => `${p.oid} (line ${p.line})`).join(', ')}`);
  const mdvOid = mdv.oid;
  const environment = opts.environment ?? 'Prod';
  const studyOid = study.oid;
  const clinicalOid = `${studyOid}(${environment})`;
  const acceptsStudy = (oid: string) => oid === clinicalOid || (environment === 'Prod' && oid === studyOid);
  const events = new Map<string, OdmEventDef>(mdv.events.map((e) => [e.oid, e]));
  const forms = new Map<string, OdmFormDef>(mdv.forms.map((f) => [f.oid, f]));
  const groups = new Map<string, OdmItemGroupDef>(mdv.itemGroups.map((g) => [g.oid, g]));
  const items = new Map<string, OdmItemDef>(mdv.items.map((i) => [i.oid, i]));
  const codeLists = new Map<string, OdmCodeListDef>(mdv.codeLists.map((c) => [c.oid, c]));
  const protocolEvents = mdv.protocol ? new Set(mdv.protocol.eventRefs.map((r) => r.oid)) : null;
  const basic = `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString('base64')}`;

  const store = new Map<string, StoredSubject>();
  let changes = 0;
  let posts = 0;
  let lastUser: string | null = null;
  const removals: RaveRemoval[] = [];
  const refusals: Refusal[] = [];

  const response = (status: number, a: Record<string, string>): Reply => ({
    status,
    contentType: 'text/xml; charset=utf-8',
    body: `<Response ${Object.entries(a)
      .map(([k, v]) => `${k}="${xmlAttr(v)}"`)
      .join(' ')}></Response>`,
  });
  const ZERO_STATS = 'Rave objects touched: Subjects=0; Folders=0; Forms=0; Fields=0; LogLines=0';

  function cloneSubject(s: StoredSubject): StoredSubject {
    return { site: s.site, events: new Map([...s.events].map(([ek, f]) => [ek, new Map([...f].map(([fk, g]) => [fk, new Map([...g].map(([gk, i]) => [gk, new Map(i)]))]))])) };
  }

  /** Checks and applies one subject's transactions to a copy; throws PostRefusal at the first problem. */
  function applySubject(
    s: OdmParsedSubject,
    loc: string,
    stats: { subjects: number; folders: number; forms: number; fields: number; logLines: number },
    removed: RaveRemoval[],
  ): { copy: StoredSubject | null; changed: number } {
    const tt = s.transactionType;
    if (!tt) throw new PostRefusal('RWS00017', loc, 'TransactionType is required on SubjectData in a Transactional document. (approx.)');
    const refused = refusalFor(refusals, s.subjectKey);
    if (refused) throw new PostRefusal('RWS00060', loc, refused.reason);
    const existing = store.get(s.subjectKey);
    if (tt === 'Insert' && existing) throw new PostRefusal('RWS00024', loc, 'Subject already exists.');
    if ((tt === 'Update' || tt === 'Remove' || tt === 'Context') && !existing) throw new PostRefusal('RWS00025', loc, `Subject ${s.subjectKey} not found. (approx.)`);
    if (!existing && !s.siteOid) throw new PostRefusal('RWS00050', loc, 'A SiteRef is required to create a subject. (approx.)');
    if (s.siteOid && opts.sites && !opts.sites.includes(s.siteOid)) throw new PostRefusal('RWS00050', loc, `Site ${s.siteOid} not found. (approx.)`);
    if (existing && s.siteOid && existing.site && s.siteOid !== existing.site) throw new PostRefusal('RWS00051', loc, `Subject ${s.subjectKey} is at site ${existing.site}, not ${s.siteOid}. (approx.)`);
    const copy: StoredSubject = existing ? cloneSubject(existing) : { site: s.siteOid, events: new Map() };
    let changed = existing ? 0 : 1;
    if (tt === 'Remove') {
      if (s.events.some((e) => e.transactionType && e.transactionType !== 'Remove')) throw new PostRefusal('RWS00018', loc, 'The descendants of a Remove must be Remove or inherit it. (approx.)');
      if (!s.events.length) {
        stats.subjects++;
        removed.push({ subject: s.subjectKey, level: 'subject' });
        return { copy: null, changed: 1 };
      }
    }
    const counted = { folders: new Set<string>(), forms: new Set<string>(), logLines: new Set<string>() };
    s.events.forEach((e, ei) => {
      const eLoc = `${loc}/StudyEventData[${ei + 1}]`;
      const eTT: OdmTransactionType = e.transactionType ?? tt;
      if (tt === 'Remove' && eTT !== 'Remove') throw new PostRefusal('RWS00018', eLoc, 'The descendants of a Remove must be Remove or inherit it. (approx.)');
      const eDef = events.get(e.eventOid);
      if (!eDef || (protocolEvents && !protocolEvents.has(e.eventOid))) throw new PostRefusal('RWS00034', eLoc, `StudyEventOID ${e.eventOid} is not defined in the study's metadata. (approx.)`);
      if (eDef.repeating !== (e.repeatKey !== undefined))
        throw new PostRefusal('RWS00043', eLoc, eDef.repeating ? `StudyEventRepeatKey is required for the repeating event ${e.eventOid}. (approx.)` : `StudyEventRepeatKey is not allowed for the non-repeating event ${e.eventOid}. (approx.)`);
      const ek = key(e.eventOid, e.repeatKey);
      let ev = copy.events.get(ek);
      if (eTT === 'Insert' && ev) throw new PostRefusal('RWS00026', eLoc, `The event ${e.eventOid} already exists. (approx.)`);
      if ((eTT === 'Update' || eTT === 'Remove' || eTT === 'Context') && !ev) throw new PostRefusal('RWS00025', eLoc, `The event ${e.eventOid} does not exist. (approx.)`);
      const at = { subject: s.subjectKey, event: e.eventOid, ...(e.repeatKey !== undefined ? { eventRepeat: String(e.repeatKey) } : {}) };
      if (eTT === 'Remove' && !e.forms.length) {
        removed.push({ ...at, level: 'event' });
        copy.events.delete(ek);
        changed++;
        counted.folders.add(ek);
        return;
      }
      if (!ev) {
        copy.events.set(ek, (ev = new Map<string, Groups>()));
        changed++;
        counted.folders.add(ek);
      }
      const evForms = ev;
      e.forms.forEach((f, fi) => {
        const fLoc = `${eLoc}/FormData[${fi + 1}]`;
        const fTT: OdmTransactionType = f.transactionType ?? eTT;
        if (eTT === 'Remove' && fTT !== 'Remove') throw new PostRefusal('RWS00018', fLoc, 'The descendants of a Remove must be Remove or inherit it. (approx.)');
        const fDef = forms.get(f.formOid);
        if (!fDef || !eDef.formRefs.some((r) => r.oid === f.formOid)) throw new PostRefusal('RWS00035', fLoc, `FormOID ${f.formOid} is not defined in the event ${e.eventOid}. (approx.)`);
        if (fDef.repeating !== (f.repeatKey !== undefined))
          throw new PostRefusal('RWS00043', fLoc, fDef.repeating ? `FormRepeatKey is required for the repeating form ${f.formOid}. (approx.)` : `FormRepeatKey is not allowed for the non-repeating form ${f.formOid}. (approx.)`);
        const fk = key(f.formOid, f.repeatKey);
        let fm = evForms.get(fk);
        if (fTT === 'Insert' && fm) throw new PostRefusal('RWS00026', fLoc, `The form ${f.formOid} already exists. (approx.)`);
        if ((fTT === 'Update' || fTT === 'Remove' || fTT === 'Context') && !fm) throw new PostRefusal('RWS00025', fLoc, `The form ${f.formOid} does not exist. (approx.)`);
        const fAt = { ...at, form: f.formOid, ...(f.repeatKey !== undefined ? { formRepeat: String(f.repeatKey) } : {}) };
        if (fTT === 'Remove' && !f.groups.length) {
          removed.push({ ...fAt, level: 'form' });
          evForms.delete(fk);
          changed++;
          counted.forms.add(`${ek}|${fk}`);
          return;
        }
        if (!fm) {
          evForms.set(fk, (fm = new Map<string, Items>()));
          changed++;
          counted.forms.add(`${ek}|${fk}`);
        }
        const fmGroups = fm;
        f.groups.forEach((g, gi) => {
          const gLoc = `${fLoc}/ItemGroupData[${gi + 1}]`;
          const gTT: OdmTransactionType = g.transactionType ?? fTT;
          if (fTT === 'Remove' && gTT !== 'Remove') throw new PostRefusal('RWS00018', gLoc, 'The descendants of a Remove must be Remove or inherit it. (approx.)');
          const gDef = groups.get(g.groupOid);
          if (!gDef || !fDef.itemGroupRefs.some((r) => r.oid === g.groupOid)) throw new PostRefusal('RWS00036', gLoc, `ItemGroupOID ${g.groupOid} is not defined in the form ${f.formOid}. (approx.)`);
          if (gDef.repeating !== (g.repeatKey !== undefined))
            throw new PostRefusal('RWS00043', gLoc, gDef.repeating ? `ItemGroupRepeatKey is required for the repeating group ${g.groupOid}. (approx.)` : `ItemGroupRepeatKey is not allowed for the non-repeating group ${g.groupOid}. (approx.)`);
          const gk = key(g.groupOid, g.repeatKey);
          let gm = fmGroups.get(gk);
          if (gTT === 'Insert' && gm) throw new PostRefusal('RWS00026', gLoc, `The item group ${g.groupOid} already exists. (approx.)`);
          if ((gTT === 'Update' || gTT === 'Remove' || gTT === 'Context') && !gm) throw new PostRefusal('RWS00025', gLoc, `The item group ${g.groupOid} does not exist. (approx.)`);
          const gAt = { ...fAt, group: g.groupOid, ...(g.repeatKey !== undefined ? { groupRepeat: String(g.repeatKey) } : {}) };
          if (gTT === 'Remove' && !g.items.length) {
            removed.push({ ...gAt, level: 'group' });
            fmGroups.delete(gk);
            changed++;
            if (gDef.repeating) counted.logLines.add(`${ek}|${fk}|${gk}`);
            return;
          }
          if (!gm) {
            fmGroups.set(gk, (gm = new Map<string, string | null>()));
            changed++;
          }
          const gmItems = gm;
          g.items.forEach((it, ii) => {
            const iLoc = `${gLoc}/ItemData[${ii + 1}]`;
            const iTT: OdmTransactionType = it.transactionType ?? gTT;
            if (gTT === 'Remove' && iTT !== 'Remove') throw new PostRefusal('RWS00018', iLoc, 'The descendants of a Remove must be Remove or inherit it. (approx.)');
            const iDef = items.get(it.itemOid);
            if (!iDef || !gDef.itemRefs.some((r) => r.oid === it.itemOid)) throw new PostRefusal('RWS00037', iLoc, `ItemOID ${it.itemOid} is not defined in the item group ${g.groupOid}. (approx.)`);
            const has = gmItems.has(it.itemOid);
            if (iTT === 'Insert' && has) throw new PostRefusal('RWS00026', iLoc, `The item ${it.itemOid} already has data. (approx.)`);
            if ((iTT === 'Update' || iTT === 'Remove') && !has) throw new PostRefusal('RWS00025', iLoc, `The item ${it.itemOid} has no data to ${iTT === 'Update' ? 'update' : 'remove'}. (approx.)`);
            if (iTT === 'Context') return;
            if (iTT === 'Remove') {
              removed.push({ ...gAt, level: 'item', item: it.itemOid });
              gmItems.delete(it.itemOid);
              changed++;
              stats.fields++;
              counted.forms.add(`${ek}|${fk}`);
              return;
            }
            const v = it.value === null ? null : String(it.value);
            if (v !== null) {
              const itemRefusal = refusalFor(refusals, s.subjectKey, it.itemOid);
              if (itemRefusal) throw new PostRefusal('RWS00060', iLoc, itemRefusal.reason);
              const problem = valueProblem(iDef, iDef.codeListRef ? codeLists.get(iDef.codeListRef.oid) : undefined, v);
              if (problem) throw new PostRefusal(problem.includes('code list') ? 'RWS00041' : 'RWS00040', iLoc, `Invalid value for ${it.itemOid}: ${problem}. (approx.)`);
            }
            if (!has || gmItems.get(it.itemOid) !== v) {
              gmItems.set(it.itemOid, v);
              changed++;
              stats.fields++;
              counted.forms.add(`${ek}|${fk}`);
              counted.folders.add(ek);
              if (gDef.repeating) counted.logLines.add(`${ek}|${fk}|${gk}`);
            }
          });
        });
      });
    });
    if (changed) stats.subjects++;
    stats.folders += counted.folders.size;
    stats.forms += counted.forms.size;
    stats.logLines += counted.logLines.size;
    return { copy, changed };
  }

  async function postClinicalData(body: string): Promise<Reply> {
    const refNo = randomUUID();
    let fileOid = '';
    const refuse = (e: PostRefusal) =>
      response(400, {
        ReferenceNumber: refNo,
        InboundODMFileOID: fileOid,
        IsTransactionSuccessful: '0',
        ReasonCode: e.code,
        ErrorOriginLocation: e.location,
        SuccessStatistics: ZERO_STATS,
        ErrorClientResponseMessage: e.message,
      });
    const schema = await validateOdm(body);
    if (!schema.valid) {
      const first = schema.errors[0];
      return refuse(new PostRefusal('RWS00005', '/ODM', `The ODM document is not valid against the ODM 1.3 schema: ${first ? `line ${first.line}: ${first.message}` : 'invalid'}. (approx.)`));
    }
    let header: Record<string, string> = {};
    const subjects: OdmParsedSubject[] = [];
    try {
      for await (const s of parseOdmClinical(body, { onHeader: (a) => (header = a) })) subjects.push(s);
    } catch (err) {
      return refuse(new PostRefusal('RWS00005', '/ODM', `${(err as Error).message}. (approx.)`));
    }
    fileOid = header.FileOID ?? '';
    if (header.FileType !== 'Transactional') return refuse(new PostRefusal('RWS00016', '/ODM', 'FileType must be Transactional to post clinical data. (approx.)'));
    const stats = { subjects: 0, folders: 0, forms: 0, fields: 0, logLines: 0 };
    const staged = new Map<string, StoredSubject | null>();
    const removed: RaveRemoval[] = [];
    let cdIndex = 0;
    let subjectIndex = 0;
    let lastCd = '';
    try {
      for (const s of subjects) {
        const cd = `${s.studyOid}\u0000${s.metaDataVersionOid}`;
        if (cd !== lastCd) {
          cdIndex++;
          subjectIndex = 0;
          lastCd = cd;
        }
        subjectIndex++;
        const cdLoc = `/ODM/ClinicalData[${cdIndex}]`;
        if (!acceptsStudy(s.studyOid)) throw new PostRefusal('RWS00022', cdLoc, `Study ${s.studyOid} not found. (approx.)`);
        if (s.metaDataVersionOid !== mdvOid) throw new PostRefusal('RWS00092', cdLoc, 'CRF version not found.');
        // a subject posted twice in one document sees its own earlier transactions
        const before = store.get(s.subjectKey);
        const prior = staged.get(s.subjectKey);
        if (prior) store.set(s.subjectKey, prior);
        else if (prior === null) store.delete(s.subjectKey);
        try {
          staged.set(s.subjectKey, applySubject(s, `${cdLoc}/SubjectData[${subjectIndex}]`, stats, removed).copy);
        } finally {
          if (before) store.set(s.subjectKey, before);
          else store.delete(s.subjectKey);
        }
      }
    } catch (err) {
      if (err instanceof PostRefusal) return refuse(err);
      throw err;
    }
    // the whole transaction is applied only now
    for (const [k, v] of staged) {
      if (v === null) store.delete(k);
      else store.set(k, v);
    }
    changes += stats.fields;
    removals.push(...removed);
    posts++;
    const site = subjects.length ? store.get(subjects[subjects.length - 1]!.subjectKey)?.site : undefined;
    return response(200, {
      ReferenceNumber: refNo,
      InboundODMFileOID: fileOid,
      IsTransactionSuccessful: '1',
      SuccessStatistics: `Rave objects touched: Subjects=${stats.subjects}; Folders=${stats.folders}; Forms=${stats.forms}; Fields=${stats.fields}; LogLines=${stats.logLines}`,
      NewRecords: '',
      SubjectNumberInStudy: String(store.size),
      SubjectNumberInStudySite: String([...store.values()].filter((x) => site !== undefined && x.site === site).length),
    });
  }

  async function subjectDataset(subjectKey: string): Promise<Reply> {
    const s = store.get(subjectKey);
    const subjects: OdmSubject[] = s
      ? [
          {
            subjectKey,
            ...(s.site ? { siteOid: s.site } : {}),
            events: [...s.events].map(([ek, fs]) => {
              const [eventOid, er] = unkey(ek);
              return {
                eventOid,
                ...(er !== undefined ? { repeatKey: er } : {}),
                forms: [...fs].map(([fk, gs]) => {
                  const [formOid, fr] = unkey(fk);
                  return {
                    formOid,
                    ...(fr !== undefined ? { repeatKey: fr } : {}),
                    groups: [...gs].map(([gk, its]) => {
                      const [groupOid, gr] = unkey(gk);
                      return { groupOid, ...(gr !== undefined ? { repeatKey: gr } : {}), items: [...its].map(([itemOid, value]) => ({ itemOid, value })) };
                    }),
                  };
                }),
              };
            }),
          },
        ]
      : [];
    let out = '';
    for await (const chunk of odmClinicalChunks({ fileOid: randomUUID(), fileType: 'Snapshot', granularity: 'SingleSubject', studyOid: clinicalOid, metaDataVersionOid: mdvOid }, subjects)) out += chunk;
    return { status: 200, contentType: 'text/xml; charset=utf-8', body: out };
  }

  function studyList(): Reply {
    return {
      status: 200,
      contentType: 'text/xml; charset=utf-8',
      body:
        `<?xml version="1.0" encoding="utf-8"?>\n<ODM FileType="Snapshot" FileOID="${randomUUID()}" CreationDateTime="${new Date().toISOString()}" ODMVersion="1.3" ` +
        `xmlns:mdsol="http://www.mdsol.com/ns/odm/metadata" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns="http://www.cdisc.org/ns/odm/v1.3">\n` +
        `<Study OID="${xmlAttr(clinicalOid)}"><GlobalVariables><StudyName>${xmlText(`${study!.studyName || studyOid} (${environment})`)}</StudyName><StudyDescription/>` +
        `<ProtocolName>${xmlText(study!.protocolName || studyOid)}</ProtocolName></GlobalVariables></Study>\n</ODM>`,
    };
  }

  async function handle(method: string, rawPath: string, headers: http.IncomingHttpHeaders, body: string): Promise<Reply> {
    const u = new URL(rawPath, 'http://rave.local');
    const path = decodeURIComponent(u.pathname).replace(/\/+$/, '');
    if (method === 'GET' && path === '/RaveWebServices/version') return { status: 200, contentType: 'text/plain; charset=utf-8', body: '1.15.0' };
    if (!path.startsWith('/RaveWebServices/')) return { status: 404, contentType: 'text/html', body: '<h2>404 - File or directory not found.</h2>' };
    const auth = headers.authorization;
    if (!auth) return { status: 401, contentType: 'text/html; charset=utf-8', body: 'Authorization Header not provided' };
    if (auth !== basic) return odmError(401, 'Incorrect login and password combination. [RWS00008]');
    lastUser = opts.user;
    if (method === 'POST' && path === '/RaveWebServices/webservice.aspx' && u.search === '?PostODMClinicalData') return postClinicalData(body);
    if (method !== 'GET') return { status: 405, contentType: 'text/html', body: '<h2>405 - HTTP verb used to access this page is not allowed.</h2>' };
    if (path === '/RaveWebServices/studies') return studyList();
    const meta = /^\/RaveWebServices\/studies\/([^/]+)\/datasets\/metadata\/regular$/.exec(path);
    if (meta) {
      if (!(meta[1] === studyOid || acceptsStudy(meta[1]!))) return odmError(404, `Study ${meta[1]} not found. (approx.)`);
      return { status: 200, contentType: 'text/xml; charset=utf-8', body: opts.metadataXml };
    }
    const ds = /^\/RaveWebServices\/studies\/([^/]+)\/subjects\/([^/]+)\/datasets\/regular$/.exec(path);
    if (ds) {
      if (!acceptsStudy(ds[1]!)) return odmError(404, `Study ${ds[1]} not found. (approx.)`);
      return subjectDataset(ds[2]!);
    }
    return odmError(404, `No such resource: ${path}. (approx.)`);
  }

  const server = await startReceiverServer({
    port: opts.port,
    host: opts.host,
    isWrite: (method, path) => method === 'POST' && path.includes('PostODMClinicalData'),
    handle,
    authRefused: () => odmError(401, 'Incorrect login and password combination. [RWS00008]'),
    serverError: () => ({ status: 500, contentType: 'text/html; charset=utf-8', body: 'HTTP 500.13 Web server is too busy.' }),
    maskBody: (b) => (opts.password.length >= 4 ? b.split(opts.password).join('***') : b),
  });

  const pathKeys = (p: RavePath) => [key(p.event, p.eventRepeat), key(p.form, p.formRepeat), key(p.group, p.groupRepeat)] as const;

  return {
    url: server.origin,
    studyOid,
    environment,
    requests: server.requests,
    get changes() {
      return changes;
    },
    get posts() {
      return posts;
    },
    removals,
    get lastUser() {
      return lastUser;
    },
    refusals,
    setFault: server.setFault,
    setValue(subject, p, item, value) {
      let s = store.get(subject);
      if (!s) store.set(subject, (s = { site: undefined, events: new Map<string, Forms>() }));
      const [ek, fk, gk] = pathKeys(p);
      let ev = s.events.get(ek);
      if (!ev) s.events.set(ek, (ev = new Map<string, Groups>()));
      let fm = ev.get(fk);
      if (!fm) ev.set(fk, (fm = new Map<string, Items>()));
      let gm = fm.get(gk);
      if (!gm) fm.set(gk, (gm = new Map<string, string | null>()));
      gm.set(item, value);
    },
    value(subject, p, item) {
      const [ek, fk, gk] = pathKeys(p);
      const gm = store.get(subject)?.events.get(ek)?.get(fk)?.get(gk);
      return gm?.has(item) ? (gm.get(item) ?? null) : undefined;
    },
    snapshot() {
      const sortMap = (m: Map<string, unknown>): unknown => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v instanceof Map ? sortMap(v as Map<string, unknown>) : v]));
      return JSON.stringify(Object.fromEntries([...store].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => [k, { site: s.site ?? null, events: sortMap(s.events as Map<string, unknown>) }])));
    },
    close: server.close,
  };
}
