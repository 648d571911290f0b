/**
 * Clinical data as CDISC ODM 1.3.2, streamed: `odmClinicalChunks` reads subjects from an async iterable one at a
 * time and yields the document in chunks of about 64 KB, so that its memory stays constant whatever the number of
 * subjects (only the subject being written and one chunk are held). Element order follows the XSD (AuditRecord,
 * Signature, SiteRef before the children). `formItemGroups` turns one eCRF record of our design into the
 * ItemGroupData of its FormData, with values formatted per the ItemDef's ODM DataType (odm-metadata.ts).
 */
import type { FieldComponent, FormDefinition } from '@esource/shared';
import { odmCodedValue, odmDecimal, odmFormLayout, type OdmFormLayout } from './odm-metadata';
import { attrs, odmDateTime, odmStart, xmlAttr, xmlText, type OdmRootAttributes } from './odm-xml';

export type OdmTransactionType = 'Insert' | 'Update' | 'Remove' | 'Upsert' | 'Context';
/** An ItemData value; null is written as IsNull="Yes". Numbers as plain decimals, Dates as UTC datetimes. */
export type OdmValue = string | number | boolean | Date | null;

/** Who changed a record, where, when and why (AuditRecord). */
export interface OdmAudit {
  userOid: string;
  locationOid: string;
  dateTime: Date | string;
  reason?: string;
  sourceId?: string;
}

/** An electronic signature (Signature) with the SignatureDef it was given under. */
export interface OdmSignature {
  userOid: string;
  locationOid: string;
  signatureOid: string;
  dateTime: Date | string;
}

export interface OdmItem {
  itemOid: string;
  /** ignored (neither Value nor IsNull written) for a Remove in a Transactional file */
  value: OdmValue;
  transactionType?: OdmTransactionType;
  audit?: OdmAudit;
  /** MeasurementUnitRef of the value, where the item has several units */
  unitOid?: string;
}

export interface OdmItemGroup {
  groupOid: string;
  repeatKey?: string | number;
  transactionType?: OdmTransactionType;
  items: OdmItem[];
}

export interface OdmForm {
  formOid: string;
  repeatKey?: string | number;
  transactionType?: OdmTransactionType;
  groups: OdmItemGroup[];
  audit?: OdmAudit;
  signature?: OdmSignature;
}

export interface OdmEvent {
  eventOid: string;
  repeatKey?: string | number;
  transactionType?: OdmTransactionType;
  forms: OdmForm[];
}

export interface OdmSubject {
  subjectKey: string;
  /** SiteRef: the Location (AdminData) of the subject's site */
  siteOid?: string;
  transactionType?: OdmTransactionType;
  events: OdmEvent[];
}

export interface OdmUser {
  oid: string;
  userType?: 'Sponsor' | 'Investigator' | 'Lab' | 'Other';
  loginName?: string;
  displayName?: string;
  fullName?: string;
  organization?: string;
  email?: string;
  locationOids?: string[];
}

export interface OdmLocation {
  oid: string;
  name: string;
  locationType?: 'Sponsor' | 'Site' | 'CRO' | 'Lab' | 'Other';
  /** MetaDataVersionRef EffectiveDate (YYYY-MM-DD); default the file's creation date */
  effectiveDate?: string;
}

export interface OdmSignatureDef {
  oid: string;
  methodology?: 'Digital' | 'Electronic';
  meaning: string;
  legalReason: string;
}

export interface OdmAdminData {
  users?: OdmUser[];
  locations?: OdmLocation[];
  signatureDefs?: OdmSignatureDef[];
}

/** The document around the subjects. Transactional files need a TransactionType on every SubjectData. */
export interface OdmClinicalHeader extends Omit<OdmRootAttributes, 'granularity'> {
  granularity?: 'All' | 'AllClinicalData' | 'SingleSite' | 'SingleSubject';
  studyOid: string;
  metaDataVersionOid: string;
  /** written before ClinicalData */
  adminData?: OdmAdminData;
}

/** A subject or header the writer cannot turn into valid ODM (a programming error of the caller). */
export class OdmWriteError extends Error {
  override readonly name = 'OdmWriteError';
}

/** An ItemData value as ODM text. */
export function formatOdmValue(v: Exclude<OdmValue, null>): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return odmDecimal(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return odmDateTime(v);
}

function auditRecord(a: OdmAudit): string {
  return (
    `<AuditRecord><UserRef UserOID="${xmlAttr(a.userOid)}"/><LocationRef LocationOID="${xmlAttr(a.locationOid)}"/>` +
    `<DateTimeStamp>${xmlText(odmDateTime(a.dateTime))}</DateTimeStamp>` +
    (a.reason ? `<ReasonForChange>${xmlText(a.reason)}</ReasonForChange>` : '') +
    (a.sourceId ? `<SourceID>${xmlText(a.sourceId)}</SourceID>` : '') +
    '</AuditRecord>'
  );
}

function signature(s: OdmSignature): string {
  return (
    `<Signature><UserRef UserOID="${xmlAttr(s.userOid)}"/><LocationRef LocationOID="${xmlAttr(s.locationOid)}"/>` +
    `<SignatureRef SignatureOID="${xmlAttr(s.signatureOid)}"/><DateTimeStamp>${xmlText(odmDateTime(s.dateTime))}</DateTimeStamp></Signature>`
  );
}

function adminData(h: OdmClinicalHeader, a: OdmAdminData): string {
  const created = h.creationDateTime ?? new Date();
  const today = (typeof created === 'string' ? created : created.toISOString()).slice(0, 10);
  let out = `<AdminData StudyOID="${xmlAttr(h.studyOid)}">\n`;
  for (const u of a.users ?? []) {
    out += `  <User${attrs({ OID: u.oid, UserType: u.userType })}>`;
    if (u.loginName) out += `<LoginName>${xmlText(u.loginName)}</LoginName>`;
    if (u.displayName) out += `<DisplayName>${xmlText(u.displayName)}</DisplayName>`;
    if (u.fullName) out += `<FullName>${xmlText(u.fullName)}</FullName>`;
    if (u.organization) out += `<Organization>${xmlText(u.organization)}</Organization>`;
    if (u.email) out += `<Email>${xmlText(u.email)}</Email>`;
    for (const l of u.locationOids ?? []) out += `<LocationRef LocationOID="${xmlAttr(l)}"/>`;
    out += '</User>\n';
  }
  for (const l of a.locations ?? [])
    out +=
      `  <Location${attrs({ OID: l.oid, Name: l.name, LocationType: l.locationType })}>` +
      `<MetaDataVersionRef${attrs({ StudyOID: h.studyOid, MetaDataVersionOID: h.metaDataVersionOid, EffectiveDate: l.effectiveDate ?? today })}/></Location>\n`;
  for (const s of a.signatureDefs ?? [])
    out += `  <SignatureDef${attrs({ OID: s.oid, Methodology: s.methodology })}><Meaning>${xmlText(s.meaning)}</Meaning><LegalReason>${xmlText(s.legalReason)}</LegalReason></SignatureDef>\n`;
  return out + '</AdminData>\n';
}

/** One SubjectData element. TransactionType attributes are written in Transactional files only. */
export function subjectXml(s: OdmSubject, transactional: boolean): string {
  if (transactional && !s.transactionType)
    throw new OdmWriteError(
      `subject ${s.subjectKey}: a Transactional file needs a TransactionType on every SubjectData`,
    );
  const tt = (t: OdmTransactionType | undefined) => (transactional ? t : undefined);
  let out = `  <SubjectData${attrs({ SubjectKey: s.subjectKey, TransactionType: tt(s.transactionType) })}>`;
  if (s.siteOid) out += `<SiteRef LocationOID="${xmlAttr(s.siteOid)}"/>`;
  out += '\n';
  for (const e of s.events) {
    out += `    <StudyEventData${attrs({ StudyEventOID: e.eventOid, StudyEventRepeatKey: e.repeatKey, TransactionType: tt(e.transactionType) })}>\n`;
    for (const f of e.forms) {
      out += `      <FormData${attrs({ FormOID: f.formOid, FormRepeatKey: f.repeatKey, TransactionType: tt(f.transactionType) })}>`;
      if (f.audit) out += auditRecord(f.audit);
      if (f.signature) out += signature(f.signature);
      out += '\n';
      for (const g of f.groups) {
        out += `        <ItemGroupData${attrs({ ItemGroupOID: g.groupOid, ItemGroupRepeatKey: g.repeatKey, TransactionType: tt(g.transactionType) })}>\n`;
        for (const i of g.items) {
          out += `          <ItemData ItemOID="${xmlAttr(i.itemOid)}"`;
          if (transactional && i.transactionType) out += ` TransactionType="${i.transactionType}"`;
          // a Remove names the item only (ODM 1.3.2: Value is optional; the data removed is the item's)
          if (!(transactional && i.transactionType === 'Remove'))
            out += i.value === null ? ' IsNull="Yes"' : ` Value="${xmlAttr(formatOdmValue(i.value))}"`;
          if (i.audit || i.unitOid) {
            out += '>';
            if (i.audit) out += auditRecord(i.audit);
            if (i.unitOid) out += `<MeasurementUnitRef MeasurementUnitOID="${xmlAttr(i.unitOid)}"/>`;
            out += '</ItemData>\n';
          } else out += '/>\n';
        }
        out += '        </ItemGroupData>\n';
      }
      out += '      </FormData>\n';
    }
    out += '    </StudyEventData>\n';
  }
  return out + '  </SubjectData>\n';
}

/** The ClinicalData start tag of a study's MetaDataVersion (also for a fragment shown on its own, e.g. in a log). */
export function clinicalDataStart(h: Pick<OdmClinicalHeader, 'studyOid' | 'metaDataVersionOid'>): string {
  return `<ClinicalData StudyOID="${xmlAttr(h.studyOid)}" MetaDataVersionOID="${xmlAttr(h.metaDataVersionOid)}">\n`;
}

/** Chunks are yielded once they reach this many UTF-16 units. */
const CHUNK = 64 * 1024;

/**
 * A whole ODM clinical-data document (AdminData first when given, then one ClinicalData) streamed from the
 * subjects. Memory is constant in the number of subjects: each subject is turned into text and appended to a
 * chunk of about 64 KB, which is yielded (and released) before the next one is filled.
 */
export async function* odmClinicalChunks(
  header: OdmClinicalHeader,
  subjects: AsyncIterable<OdmSubject> | Iterable<OdmSubject>,
): AsyncGenerator<string> {
  const transactional = header.fileType === 'Transactional';
  let buf = odmStart({ ...header, granularity: header.granularity });
  if (header.adminData) buf += adminData(header, header.adminData);
  buf += clinicalDataStart(header);
  for await (const s of subjects) {
    buf += subjectXml(s, transactional);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield buf + '</ClinicalData>\n</ODM>\n';
}

function isBlank(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    (typeof v === 'string' && v.trim() === '') ||
    (Array.isArray(v) && v.length === 0)
  );
}

/** A URI reference for a file item: characters a URI may not hold are percent-encoded (existing %XX kept). */
function uriReference(s: string): string {
  return s.replace(/[^\x21-\x7E]|[<>"{}|\\^`]|%(?![0-9A-Fa-f]{2})/gu, (c) => encodeURIComponent(c));
}

/**
 * One answered value of a field as ODM text (see odmDataType): numbers as plain decimals (the user's digits are
 * kept, "12.50" stays), datetimes `YYYY-MM-DD HH:mm` as `YYYY-MM-DDTHH:mm:ss`, choices as their CodedValue (the
 * option's mapping, else its value), file references as URI references. Null when the value is blank.
 */
export function odmFieldValue(f: FieldComponent, v: unknown): string | null {
  if (isBlank(v)) return null;
  const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? odmDecimal(v) : String(v);
  switch (f.type) {
    case 'number':
      return /^[+-]?\d+(\.\d+)?$/.test(text) ? text.replace(/^\+/, '') : odmDecimal(Number(text));
    case 'datetime': {
      const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?/.exec(text);
      return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}` : text;
    }
    case 'radio':
    case 'select': {
      const o = (f.options ?? []).find((x) => x.value === text);
      return o ? odmCodedValue(o) : text;
    }
    case 'file':
      return uriReference(text);
    case 'checkbox':
    case 'date':
    case 'text':
    case 'textarea':
      return text;
  }
}

export interface FormItemGroupsOptions {
  /** write blank items of the form's group as IsNull (a Transactional update that clears them); default false */
  includeBlank?: boolean;
  /** audit record per variable */
  audit?: (variable: string) => OdmAudit | undefined;
  /** the form's `odmFormLayout`, when the caller writes many records of it (computed once, not per record) */
  layout?: OdmFormLayout;
}

/**
 * The ItemGroupData of one eCRF record (values by variable code): the form's group with its answered items in
 * form order, then one repeating group per ticked checkbox option (repeat keys 1…n, CodedValue of the option).
 */
export function formItemGroups(
  form: FormDefinition,
  values: Record<string, unknown>,
  opts: FormItemGroupsOptions = {},
): OdmItemGroup[] {
  const layout = opts.layout ?? odmFormLayout(form);
  const groups: OdmItemGroup[] = [];
  const main: OdmItem[] = [];
  for (const l of layout.fields) {
    // own keys only: a variable may be named `constructor`
    const raw = Object.hasOwn(values, l.field.variable) ? values[l.field.variable] : undefined;
    const audit = opts.audit?.(l.field.variable);
    if (l.repeatingGroup) {
      const list = Array.isArray(raw) ? raw : isBlank(raw) ? [] : [raw];
      list.forEach((x, i) => {
        const o = (l.field.options ?? []).find((opt) => opt.value === String(x));
        groups.push({
          groupOid: l.groupOid,
          repeatKey: i + 1,
          items: [
            { itemOid: l.itemOid, value: o ? odmCodedValue(o) : String(x), ...(audit ? { audit } : {}) },
          ],
        });
      });
      continue;
    }
    const value = odmFieldValue(l.field, raw);
    if (value === null && !opts.includeBlank) continue;
    main.push({ itemOid: l.itemOid, value, ...(audit ? { audit } : {}) });
  }
  if (layout.mainGroupOid && main.length) groups.unshift({ groupOid: layout.mainGroupOid, items: main });
  return groups;
}
