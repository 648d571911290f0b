/**
 * Study metadata of a design as CDISC ODM 1.3.2 (Study / MetaDataVersion), written as a generator of string chunks
 * so that a caller can stream it to a file or a response. Valid against the official XSD set (checked in the tests
 * with xmllint). The representation choices (docs/decisions.md "CDISC ODM 1.3.2 mapping"):
 *
 * - one non-repeating ItemGroupDef `IG.<form>` per form holds its fields in component order; table cells are a
 *   layout of distinct items (not repeating rows), so a table's fields sit in that group too, and a table's display
 *   condition is and-ed into each of its fields' conditions;
 * - a checkbox (multiple choice) item is a text ItemDef with its CodeList inside its own repeating ItemGroupDef
 *   `IG.<form>.<var>` — one ItemGroupData per ticked option, the "select all that apply" pattern that keeps every
 *   value a single CodedValue of the CodeList; ItemRef OrderNumbers count positions across the whole form, so the
 *   checkbox keeps its place among the other fields;
 * - a file item is a URI ItemDef: the value is a reference to the upload, the content stays in eSource;
 * - a display condition (when the item is shown) becomes the ItemRef's CollectionExceptionCondition (when it is
 *   NOT collected): the ConditionDef's FormalExpression, Context "eSource", is `not (<condition>)`;
 * - what ODM 1.3.2 has no place for and a round trip needs is carried in Alias elements of context `eSource.*`
 *   (`eSource.control`: radio / select / textarea, which share a DataType with others; `eSource.value`: our option
 *   value where the CodedValue is its mapping; `eSource.schedule`: a visit's day offset and window).
 */
import { type DesignExportFile, type FieldComponent, type FormDefinition } from '@esource/shared';
import { odmOid } from './odm-oids';
import { attrs, odmStart, translated, xmlAttr, xmlText, type OdmRootAttributes } from './odm-xml';

/** Largest value of a text / textarea item (ecrf-values.ts), written as the ItemDef Length. */
export const ODM_TEXT_LENGTH = 500;
export const ODM_TEXTAREA_LENGTH = 5000;

/** Alias contexts we write and read back. */
export const ODM_ALIAS = {
  control: 'eSource.control',
  value: 'eSource.value',
  schedule: 'eSource.schedule',
} as const;

/** FormalExpression Context of our display conditions. */
export const ODM_CONDITION_CONTEXT = 'eSource';

/** One field of a form as ODM sees it. */
export interface OdmFieldLayout {
  field: FieldComponent;
  itemOid: string;
  /** the ItemGroupDef it is in: the form's group, or the checkbox's own repeating group */
  groupOid: string;
  repeatingGroup: boolean;
  /** 1-based position among all fields of the form (ItemRef OrderNumber) */
  order: number;
  /** the display condition in force (the table's and the field's, and-ed) */
  condition?: string;
  conditionOid?: string;
  codeListOid?: string;
}

export interface OdmFormLayout {
  formOid: string;
  /** the form's non-repeating group; null when every field is a checkbox */
  mainGroupOid: string | null;
  fields: OdmFieldLayout[];
}

function andConditions(a: string | undefined, b: string | undefined): string | undefined {
  const x = a?.trim();
  const y = b?.trim();
  if (x && y) return `(${x}) and (${y})`;
  return x || y || undefined;
}

/** How a form's fields are laid out in ODM (shared by the metadata and the clinical-data writers). */
export function odmFormLayout(form: FormDefinition): OdmFormLayout {
  const fields: OdmFieldLayout[] = [];
  const push = (field: FieldComponent, tableCondition?: string) => {
    const repeating = field.type === 'checkbox';
    const condition = andConditions(tableCondition, field.displayCondition);
    fields.push({
      field,
      itemOid: odmOid.item(form.code, field.variable),
      groupOid: repeating ? odmOid.checkboxGroup(form.code, field.variable) : odmOid.itemGroup(form.code),
      repeatingGroup: repeating,
      order: fields.length + 1,
      ...(condition ? { condition, conditionOid: odmOid.condition(form.code, field.variable) } : {}),
      ...(field.options?.length ? { codeListOid: odmOid.codeList(form.code, field.variable) } : {}),
    });
  };
  for (const c of form.components) {
    if (c.type === 'table') {
      for (const cell of [...c.cells].sort((a, b) => a.row - b.row || a.col - b.col))
        if (cell.component) push(cell.component, c.displayCondition);
    } else push(c);
  }
  return {
    formOid: odmOid.form(form.code),
    mainGroupOid: fields.some((f) => !f.repeatingGroup) ? odmOid.itemGroup(form.code) : null,
    fields,
  };
}

/** The CodedValue of an option: its mapping when set (the code the EDC knows), else its value. */
export function odmCodedValue(o: { value: string; mapping?: string }): string {
  return o.mapping ? o.mapping : o.value;
}

/** A finite number as a plain decimal string (never exponent notation, which xs:decimal refuses). */
export function odmDecimal(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** ODM DataType (and Length / SignificantDigits) of a field. */
export function odmDataType(f: FieldComponent): {
  dataType: string;
  length?: number;
  significantDigits?: number;
} {
  switch (f.type) {
    case 'text':
      return { dataType: 'text', length: ODM_TEXT_LENGTH };
    case 'textarea':
      return { dataType: 'text', length: ODM_TEXTAREA_LENGTH };
    case 'number':
      return f.precision === 0
        ? { dataType: 'integer' }
        : { dataType: 'float', ...(f.precision !== undefined ? { significantDigits: f.precision } : {}) };
    case 'date':
      return { dataType: f.partialDate ? 'partialDate' : 'date' };
    case 'datetime':
      return { dataType: 'datetime' };
    case 'radio':
    case 'select':
    case 'checkbox':
      return {
        dataType: 'text',
        length: Math.max(1, ...(f.options ?? []).map((o) => odmCodedValue(o).length)),
      };
    case 'file':
      return { dataType: 'URI' };
  }
}

export interface OdmMetadataOptions {
  /** default `<study OID>.<version>.<time>` */
  fileOid?: string;
  creationDateTime?: Date | string;
  /** default odmOid.study(project no, else version name) */
  studyOid?: string;
  /** default odmOid.metaDataVersion(version name) */
  metaDataVersionOid?: string;
  /** GlobalVariables; defaults from design.project and design.version */
  studyName?: string;
  studyDescription?: string;
  protocolName?: string;
  sourceSystemVersion?: string;
}

function rangeMessage(cmp: 'GE' | 'LE', soft: boolean, value: string, unit: string | undefined) {
  const u = unit ? ` ${unit}` : '';
  if (cmp === 'GE')
    return soft
      ? { zh: `低于预期下限 ${value}${u}`, en: `Below the expected minimum of ${value}${u}` }
      : { zh: `不得小于 ${value}${u}`, en: `Must not be below ${value}${u}` };
  return soft
    ? { zh: `高于预期上限 ${value}${u}`, en: `Above the expected maximum of ${value}${u}` }
    : { zh: `不得大于 ${value}${u}`, en: `Must not be above ${value}${u}` };
}

function itemDef(l: OdmFieldLayout): string {
  const f = l.field;
  const t = odmDataType(f);
  const sasName = /^[A-Za-z_][A-Za-z0-9_]{0,7}$/.test(f.variable) ? f.variable : undefined;
  let out = `    <ItemDef${attrs({ OID: l.itemOid, Name: f.variable, DataType: t.dataType, Length: t.length, SignificantDigits: t.significantDigits, SASFieldName: sasName })}>\n`;
  out += `      <Question>${translated({ zh: f.label, en: f.labelEn })}</Question>\n`;
  if (f.unit) out += `      <MeasurementUnitRef MeasurementUnitOID="${xmlAttr(odmOid.unit(f.unit))}"/>\n`;
  if (f.type === 'number') {
    const soft = f.softRange ? 'Soft' : 'Hard';
    for (const [cmp, v] of [
      ['GE', f.min],
      ['LE', f.max],
    ] as const) {
      if (v === undefined) continue;
      const value = odmDecimal(v);
      out += `      <RangeCheck Comparator="${cmp}" SoftHard="${soft}"><CheckValue>${value}</CheckValue><ErrorMessage>${translated(rangeMessage(cmp, Boolean(f.softRange), value, f.unit))}</ErrorMessage></RangeCheck>\n`;
    }
  }
  if (l.codeListOid) out += `      <CodeListRef CodeListOID="${xmlAttr(l.codeListOid)}"/>\n`;
  if (f.type === 'radio' || f.type === 'select' || f.type === 'textarea')
    out += `      <Alias Context="${ODM_ALIAS.control}" Name="${f.type}"/>\n`;
  return out + '    </ItemDef>\n';
}

function codeList(l: OdmFieldLayout): string {
  const f = l.field;
  let out = `    <CodeList${attrs({ OID: l.codeListOid, Name: f.label, DataType: 'text' })}>\n`;
  (f.options ?? []).forEach((o, i) => {
    out += `      <CodeListItem${attrs({ CodedValue: odmCodedValue(o), OrderNumber: i + 1 })}><Decode>${translated({ zh: o.label, en: o.labelEn })}</Decode>`;
    if (o.mapping) out += `<Alias Context="${ODM_ALIAS.value}" Name="${xmlAttr(o.value)}"/>`;
    out += '</CodeListItem>\n';
  });
  return out + '    </CodeList>\n';
}

function conditionDef(form: FormDefinition, l: OdmFieldLayout): string {
  const expr = l.condition!;
  return (
    `    <ConditionDef${attrs({ OID: l.conditionOid, Name: `${form.code}.${l.field.variable}` })}>` +
    `<Description>${translated({ zh: `显示条件：${expr}`, en: `Shown when: ${expr}` })}</Description>` +
    `<FormalExpression Context="${ODM_CONDITION_CONTEXT}">${xmlText(`not (${expr})`)}</FormalExpression></ConditionDef>\n`
  );
}

/**
 * The design's study metadata as an ODM 1.3.2 Snapshot document (Granularity Metadata), in chunks. Only the
 * design is read; nothing is fetched. Visits are written in their sort order, forms in the design's order.
 */
export function* designToOdmMetadata(
  design: DesignExportFile,
  opts: OdmMetadataOptions = {},
): Generator<string> {
  const studyOid = opts.studyOid ?? odmOid.study(design.project?.no || design.version.name);
  const mdvOid = opts.metaDataVersionOid ?? odmOid.metaDataVersion(design.version.name);
  const created = opts.creationDateTime ?? new Date();
  const root: OdmRootAttributes = {
    fileOid:
      opts.fileOid ?? `${studyOid}.${mdvOid}.${typeof created === 'string' ? created : created.getTime()}`,
    fileType: 'Snapshot',
    granularity: 'Metadata',
    creationDateTime: created,
    sourceSystemVersion: opts.sourceSystemVersion,
  };
  yield odmStart(root);
  const studyName = opts.studyName ?? (design.project?.name || design.version.name);
  yield `<Study OID="${xmlAttr(studyOid)}">\n  <GlobalVariables><StudyName>${xmlText(studyName)}</StudyName><StudyDescription>${xmlText(opts.studyDescription ?? studyName)}</StudyDescription><ProtocolName>${xmlText(opts.protocolName ?? (design.project?.no || studyName))}</ProtocolName></GlobalVariables>\n`;

  const layouts = design.forms.map((form) => ({ form, layout: odmFormLayout(form) }));
  const units = [
    ...new Set(
      layouts.flatMap(({ layout }) =>
        layout.fields.map((l) => l.field.unit).filter((u): u is string => Boolean(u)),
      ),
    ),
  ];
  if (units.length) {
    let out = '  <BasicDefinitions>\n';
    for (const u of units)
      out += `    <MeasurementUnit${attrs({ OID: odmOid.unit(u), Name: u })}><Symbol>${translated({ plain: u })}</Symbol></MeasurementUnit>\n`;
    yield out + '  </BasicDefinitions>\n';
  }

  yield `  <MetaDataVersion${attrs({ OID: mdvOid, Name: design.version.name })}>\n`;
  const visits = [...design.visits].sort((a, b) => a.sortOrder - b.sortOrder);
  let protocol = '    <Protocol>\n';
  visits.forEach((v, i) => {
    protocol += `      <StudyEventRef${attrs({ StudyEventOID: odmOid.event(v.code), OrderNumber: i + 1, Mandatory: v.unscheduled ? 'No' : 'Yes' })}/>\n`;
  });
  yield protocol + '    </Protocol>\n';

  const formByCode = new Map(design.forms.map((f) => [f.code, f]));
  for (const v of visits) {
    let out = `    <StudyEventDef${attrs({ OID: odmOid.event(v.code), Name: v.name, Repeating: v.unscheduled ? 'Yes' : 'No', Type: v.unscheduled ? 'Unscheduled' : 'Scheduled', Category: v.stage ?? undefined })}>\n`;
    out += `      <Description>${translated({ zh: v.name, en: v.nameEn })}</Description>\n`;
    v.forms.forEach((code, i) => {
      const form = formByCode.get(code);
      out += `      <FormRef${attrs({ FormOID: odmOid.form(code), OrderNumber: i + 1, Mandatory: form?.cycle ? 'No' : 'Yes' })}/>\n`;
    });
    out += `      <Alias Context="${ODM_ALIAS.schedule}" Name="dayOffset=${v.dayOffset};windowBefore=${v.windowBefore};windowAfter=${v.windowAfter}"/>\n`;
    yield out + '    </StudyEventDef>\n';
  }

  for (const { form, layout } of layouts) {
    let out = `    <FormDef${attrs({ OID: layout.formOid, Name: form.name, Repeating: form.cycle ? 'Yes' : 'No' })}>\n`;
    out += `      <Description>${translated({ zh: form.name, en: form.nameEn })}</Description>\n`;
    let order = 0;
    if (layout.mainGroupOid)
      out += `      <ItemGroupRef${attrs({ ItemGroupOID: layout.mainGroupOid, OrderNumber: ++order, Mandatory: 'Yes' })}/>\n`;
    for (const l of layout.fields.filter((x) => x.repeatingGroup))
      out += `      <ItemGroupRef${attrs({ ItemGroupOID: l.groupOid, OrderNumber: ++order, Mandatory: l.field.required ? 'Yes' : 'No', CollectionExceptionConditionOID: l.conditionOid })}/>\n`;
    yield out + '    </FormDef>\n';
  }

  for (const { form, layout } of layouts) {
    if (layout.mainGroupOid) {
      let out = `    <ItemGroupDef${attrs({ OID: layout.mainGroupOid, Name: form.name, Repeating: 'No' })}>\n`;
      for (const l of layout.fields.filter((x) => !x.repeatingGroup))
        out += `      <ItemRef${attrs({ ItemOID: l.itemOid, OrderNumber: l.order, Mandatory: l.field.required ? 'Yes' : 'No', CollectionExceptionConditionOID: l.conditionOid })}/>\n`;
      yield out + '    </ItemGroupDef>\n';
    }
    for (const l of layout.fields.filter((x) => x.repeatingGroup))
      yield `    <ItemGroupDef${attrs({ OID: l.groupOid, Name: l.field.label, Repeating: 'Yes' })}>\n      <ItemRef${attrs({ ItemOID: l.itemOid, OrderNumber: l.order, Mandatory: 'Yes' })}/>\n    </ItemGroupDef>\n`;
  }

  for (const { layout } of layouts) for (const l of layout.fields) yield itemDef(l);
  for (const { layout } of layouts) for (const l of layout.fields) if (l.codeListOid) yield codeList(l);
  for (const { form, layout } of layouts)
    for (const l of layout.fields) if (l.conditionOid) yield conditionDef(form, l);

  yield '  </MetaDataVersion>\n</Study>\n</ODM>\n';
}
