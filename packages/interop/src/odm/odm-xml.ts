/**
 * XML text helpers of the ODM writers: escaping for element text and attribute values, and the ODM root element.
 * Characters XML 1.0 cannot carry at all (C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) are
 * replaced by U+FFFD rather than written, so that no value can make a document not well-formed.
 */

export const ODM_NS = 'http://www.cdisc.org/ns/odm/v1.3';
export const ODM_VERSION = '1.3.2';
export const SOURCE_SYSTEM = 'eSource';

const INVALID_XML =
  // eslint-disable-next-line no-control-regex -- the control characters are what it finds
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIAL = /[&<>]/g;
const ATTR_SPECIAL = /[&<>"'\t\n\r]/g;
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * Whether a text may need escaping or replacing: every character either regex above finds (controls, tab, LF, CR,
 * markup, quotes, surrogates, U+FFFE/U+FFFF). Most values have none and are written as they are, without the two
 * replace passes (a study export escapes millions of them).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const MAY_ESCAPE = /[\u0000-\u001F&<>"'\uD800-\uDFFF\uFFFE\uFFFF]/;

/** Escapes element text. */
export function xmlText(s: string): string {
  if (!MAY_ESCAPE.test(s)) return s;
  return s.replace(INVALID_XML, '\uFFFD').replace(TEXT_SPECIAL, (c) => ENTITY[c]!);
}

/** Escapes an attribute value (tab, LF and CR as character references, so that attribute normalisation keeps them). */
export function xmlAttr(s: string): string {
  if (!MAY_ESCAPE.test(s)) return s;
  return s.replace(INVALID_XML, '\uFFFD').replace(ATTR_SPECIAL, (c) => ENTITY[c]!);
}

/** ` Name="value"` for each defined attribute, in the order given. */
export function attrs(list: Record<string, string | number | undefined | null>): string {
  let out = '';
  for (const [k, v] of Object.entries(list))
    if (v !== undefined && v !== null) out += ` ${k}="${xmlAttr(String(v))}"`;
  return out;
}

/** A TranslatedText list: one element per language that has a non-empty text. */
export function translated(texts: { zh?: string | null; en?: string | null; plain?: string | null }): string {
  let out = '';
  if (texts.zh) out += `<TranslatedText xml:lang="zh">${xmlText(texts.zh)}</TranslatedText>`;
  if (texts.en) out += `<TranslatedText xml:lang="en">${xmlText(texts.en)}</TranslatedText>`;
  if (texts.plain) out += `<TranslatedText>${xmlText(texts.plain)}</TranslatedText>`;
  return out;
}

/** ODM datetime (xs:dateTime, UTC with Z) of a moment. */
export function odmDateTime(d: Date | string): string {
  if (typeof d === 'string') return d;
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

export interface OdmRootAttributes {
  fileOid: string;
  fileType: 'Snapshot' | 'Transactional';
  granularity?:
    'All' | 'Metadata' | 'AdminData' | 'ReferenceData' | 'AllClinicalData' | 'SingleSite' | 'SingleSubject';
  creationDateTime?: Date | string;
  description?: string;
  priorFileOid?: string;
  asOfDateTime?: Date | string;
  sourceSystemVersion?: string;
}

/** The XML declaration and the ODM start tag. */
export function odmStart(a: OdmRootAttributes): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<ODM xmlns="${ODM_NS}"` +
    attrs({
      FileType: a.fileType,
      Granularity: a.granularity,
      FileOID: a.fileOid,
      CreationDateTime: odmDateTime(a.creationDateTime ?? new Date()),
      PriorFileOID: a.priorFileOid,
      AsOfDateTime: a.asOfDateTime ? odmDateTime(a.asOfDateTime) : undefined,
      ODMVersion: ODM_VERSION,
      Description: a.description,
      SourceSystem: SOURCE_SYSTEM,
      SourceSystemVersion: a.sourceSystemVersion,
    }) +
    '>\n'
  );
}
