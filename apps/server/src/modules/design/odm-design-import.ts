/**
 * A design imported from a CDISC ODM 1.3.2 study definition (issue 14 item 1): the file must be well-formed, valid
 * against the ODM 1.3.2 schema once vendor extensions are set aside (odm-extensions.ts), and refer only to OIDs it
 * defines — otherwise it is refused with the line and the reason ('Import failed, data format is not correct'). What
 * of a valid file our design cannot hold is listed (line, OID, element, reason) with the new version, never silently
 * dropped.
 */
import { OdmError, odmToDesign, parseOdmStudy, validateOdm, withoutVendorExtensions, type OdmUnmapped } from '@esource/interop';
import type { DesignExportFile, Language } from '@esource/shared';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';

/** problems named in a refusal at most (the first ones, by line) */
const MAX_LISTED = 20;

/** Whether an imported file's content is XML (an ODM file) rather than our JSON design file. */
export function looksLikeXml(content: string): boolean {
  return /^\uFEFF?\s*</.test(content);
}

export interface OdmUnmappedView {
  line: number;
  oid: string;
  what: string;
  reason: string;
  message: string;
}

function refuse(lang: Language, problems: { line: number; message: string }[]): AppError {
  const t = translator(lang);
  const listed = problems.slice(0, MAX_LISTED).map((p) => ({ field: t('design.odm.line', { line: p.line }), message: p.message }));
  return new AppError('IMPORT_FORMAT', { detail: `${listed[0]!.field}: ${listed[0]!.message}` }, listed);
}

export async function parseOdmDesign(xml: string, lang: Language): Promise<{ design: DesignExportFile; unmapped: OdmUnmappedView[] }> {
  const t = translator(lang);
  let model;
  try {
    model = parseOdmStudy(xml);
  } catch (err) {
    if (err instanceof OdmError) throw refuse(lang, [{ line: err.line, message: t('design.odm.notWellFormed', { column: err.column, reason: err.reason }) }]);
    throw err;
  }
  // another system's extensions (REDCap, OpenClinica …) are ignored, as ODM lets a receiver do; the rest is validated
  const plain = withoutVendorExtensions(xml);
  const valid = await validateOdm(plain.xml);
  if (!valid.valid) throw refuse(lang, valid.errors.map((e) => ({ line: e.line, message: t('design.odm.schema', { reason: e.message }) })));
  if (model.problems.length)
    throw refuse(
      lang,
      [...model.problems].sort((a, b) => a.line - b.line).map((p) => ({ line: p.line, message: t(`design.odm.${p.reason}`, { oid: p.oid, what: p.what }) })),
    );
  if (!model.studies.length) throw refuse(lang, [{ line: 1, message: t('design.odm.noStudy') }]);
  const { design, unmapped } = odmToDesign(model);
  // vendor elements are listed by the parser with the other elements a design has no place for; attributes here
  const attributes: OdmUnmapped[] = plain.extensions
    .filter((e) => e.kind === 'attribute')
    .map((e) => ({ line: e.line, oid: e.name, what: `@${e.name}`, reason: 'vendorAttribute', detail: String(e.count) }));
  return { design, unmapped: [...unmapped, ...attributes].sort((a, b) => a.line - b.line).map((u) => view(u, lang)) };
}

function view(u: OdmUnmapped, lang: Language): OdmUnmappedView {
  const t = translator(lang);
  return { line: u.line, oid: u.oid, what: u.what, reason: u.reason, message: t(`design.odmUnmapped.${u.reason}`, { oid: u.oid, what: u.what, detail: u.detail ?? '' }) };
}
