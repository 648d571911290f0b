/**
 * The one place that names CDISC ODM 1.3.2 OIDs from our design codes. Every OID is built from codes that are
 * stable across design versions (visit, form and variable codes, unit text), never from database ids, so that the
 * same visit, form and item keep the same OID in every export and every EDC mapping made against them.
 *
 * | ODM element                         | OID                       | from                                      |
 * | ----------------------------------- | ------------------------- | ----------------------------------------- |
 * | Study                               | `S.<project no>`          | the project number (encoded)              |
 * | MetaDataVersion                     | `MDV.<version name>`      | the design version's name (encoded)       |
 * | StudyEventDef                       | `SE.<visit code>`         | visit code `[A-Za-z0-9_-]+`               |
 * | FormDef                             | `F.<form code>`           | form code `[A-Za-z0-9_-]*`                |
 * | ItemGroupDef (the form's items)     | `IG.<form code>`          | one non-repeating group per form          |
 * | ItemGroupDef (a checkbox item)      | `IG.<form code>.<var>`    | one repeating group per checkbox item     |
 * | ItemDef                             | `I.<form code>.<var>`     | variable code `[A-Za-z][A-Za-z0-9_]*`     |
 * | CodeList                            | `CL.<form code>.<var>`    | one per choice item                       |
 * | ConditionDef                        | `C.<form code>.<var>`     | one per item with a display condition     |
 * | MeasurementUnit                     | `MU.<unit>`               | the unit text (encoded)                   |
 *
 * The prefixes differ, so OIDs never collide across element types (the XSD requires every OID of a
 * MetaDataVersion to be unique whatever its type). Codes already match `[A-Za-z0-9_-]`; free text (units, project
 * numbers, version names) is encoded reversibly: ASCII letters and digits stay, every other character becomes
 * `_<hex code point>_` — so `10^9/L` is `MU.10_5e_9_2f_L`, two different texts never share an OID, and the OID is
 * plain ASCII that any EDC accepts.
 */

/** Encodes free text into OID-safe ASCII (reversible, see the module comment). */
export function encodeOidPart(text: string): string {
  let out = '';
  for (const ch of text) {
    out += /^[A-Za-z0-9]$/.test(ch) ? ch : `_${ch.codePointAt(0)!.toString(16)}_`;
  }
  return out || '_';
}

/** Reverses encodeOidPart; null when the text is not an encoded part. */
export function decodeOidPart(part: string): string | null {
  if (part === '_') return '';
  let out = '';
  const re = /([A-Za-z0-9]+)|_([0-9a-f]{1,6})_/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while ((m = re.exec(part))) {
    out += m[1] ?? String.fromCodePoint(parseInt(m[2]!, 16));
    at = re.lastIndex;
  }
  return at === part.length ? out : null;
}

export const odmOid = {
  study: (projectNo: string): string => `S.${encodeOidPart(projectNo)}`,
  metaDataVersion: (versionName: string): string => `MDV.${encodeOidPart(versionName)}`,
  event: (visitCode: string): string => `SE.${visitCode}`,
  form: (formCode: string): string => `F.${formCode}`,
  itemGroup: (formCode: string): string => `IG.${formCode}`,
  checkboxGroup: (formCode: string, variable: string): string => `IG.${formCode}.${variable}`,
  item: (formCode: string, variable: string): string => `I.${formCode}.${variable}`,
  codeList: (formCode: string, variable: string): string => `CL.${formCode}.${variable}`,
  condition: (formCode: string, variable: string): string => `C.${formCode}.${variable}`,
  unit: (unit: string): string => `MU.${encodeOidPart(unit)}`,
} as const;

/** What an OID written by us stands for; null for an OID another system wrote. */
export type OwnOid =
  | { kind: 'event'; visit: string }
  | { kind: 'form'; form: string }
  | { kind: 'itemGroup'; form: string }
  | { kind: 'checkboxGroup' | 'item' | 'codeList' | 'condition'; form: string; variable: string }
  | { kind: 'unit'; unit: string };

const CODE = '[A-Za-z0-9_-]+';
const VAR = '[A-Za-z][A-Za-z0-9_]{0,39}';

/**
 * Reads an OID back into our codes when it has one of our shapes. Form codes may not contain a dot, so
 * `I.<form>.<var>` splits unambiguously.
 */
export function parseOwnOid(oid: string): OwnOid | null {
  let m = new RegExp(`^SE\\.(${CODE})$`).exec(oid);
  if (m) return { kind: 'event', visit: m[1]! };
  m = new RegExp(`^F\\.(${CODE})$`).exec(oid);
  if (m) return { kind: 'form', form: m[1]! };
  m = new RegExp(`^IG\\.(${CODE})$`).exec(oid);
  if (m) return { kind: 'itemGroup', form: m[1]! };
  m = new RegExp(`^(IG|I|CL|C)\\.(${CODE})\\.(${VAR})$`).exec(oid);
  if (m) {
    const kind = ({ IG: 'checkboxGroup', I: 'item', CL: 'codeList', C: 'condition' } as const)[
      m[1] as 'IG' | 'I' | 'CL' | 'C'
    ];
    return { kind, form: m[2]!, variable: m[3]! };
  }
  m = /^MU\.(.+)$/.exec(oid);
  if (m) {
    const unit = decodeOidPart(m[1]!);
    if (unit !== null) return { kind: 'unit', unit };
  }
  return null;
}
