/**
 * REDCap's project model as its API exports it (content=metadata / event / formEventMapping /
 * repeatingFormsEvents / project), shared by the kind-3 adapter and the test receiver: the data dictionary row,
 * choices ("1, Yes | 2, No"), checkbox columns (field___code), the implicit form-status field ({form}_complete),
 * and the special columns of a flat record export/import.
 */

/** One data-dictionary row (content=metadata, format=json): every column is a string, blank when unset. */
export interface RedcapField {
  field_name: string;
  form_name: string;
  section_header?: string;
  /** text, notes, dropdown, radio, checkbox, yesno, truefalse, calc, file, slider, descriptive, sql */
  field_type: string;
  field_label?: string;
  select_choices_or_calculations?: string;
  field_note?: string;
  /** the validation of a text field (date_ymd, integer, number, email …) or a slider's "number" flag */
  text_validation_type_or_show_slider_number?: string;
  text_validation_min?: string;
  text_validation_max?: string;
  identifier?: string;
  branching_logic?: string;
  /** "y" when the field is required */
  required_field?: string;
  custom_alignment?: string;
  question_number?: string;
  matrix_group_name?: string;
  matrix_ranking?: string;
  field_annotation?: string;
}

/** content=event (longitudinal projects). */
export interface RedcapEvent {
  event_name: string;
  arm_num: number;
  unique_event_name: string;
  custom_event_label?: string;
  event_id?: number;
  days_offset?: number;
  offset_min?: number;
  offset_max?: number;
}

/** content=formEventMapping: which instruments an event holds. */
export interface RedcapFormEvent {
  arm_num: number;
  unique_event_name: string;
  form: string;
}

/** content=repeatingFormsEvents: a repeating instrument (form_name set) or a repeating event (form_name blank). */
export interface RedcapRepeating {
  /** the unique event name; absent in classic (non-longitudinal) projects */
  event_name?: string;
  form_name: string;
  custom_form_label?: string;
}

/** The flat format's columns that are not fields. */
export const REDCAP_EVENT = 'redcap_event_name';
export const REDCAP_REPEAT_INSTRUMENT = 'redcap_repeat_instrument';
export const REDCAP_REPEAT_INSTANCE = 'redcap_repeat_instance';

/** Field types that hold no importable record data (calculated, uploaded files and signatures, display text). */
export const REDCAP_NOT_IMPORTABLE = new Set(['calc', 'file', 'descriptive']);

/** "1, Yes | 2, No" → codes with labels (the code is what is stored and imported). */
export function parseRedcapChoices(s: string | undefined): { value: string; label: string }[] {
  if (!s || !s.trim()) return [];
  return s
    .split('|')
    .map((part) => {
      const c = part.indexOf(',');
      return c < 0 ? { value: part.trim(), label: part.trim() } : { value: part.slice(0, c).trim(), label: part.slice(c + 1).trim() };
    })
    .filter((c) => c.value !== '');
}

/** The coded values a field takes: its choices, yes/no and true/false as REDCap stores them; none otherwise. */
export function redcapCodes(f: RedcapField): { value: string; label: string }[] {
  switch (f.field_type) {
    case 'dropdown':
    case 'radio':
    case 'checkbox':
      return parseRedcapChoices(f.select_choices_or_calculations);
    case 'yesno':
      return [
        { value: '1', label: 'Yes' },
        { value: '0', label: 'No' },
      ];
    case 'truefalse':
      return [
        { value: '1', label: 'True' },
        { value: '0', label: 'False' },
      ];
    default:
      return [];
  }
}

/** The target's data type as the item list shows it: the field type, and a text field's validation after a colon. */
export function redcapDataType(f: RedcapField): string {
  const v = f.text_validation_type_or_show_slider_number?.trim();
  return f.field_type === 'text' && v ? `text:${v}` : f.field_type;
}

/** The export/import column of one checkbox option: field___code (the code lower-cased, other characters as _). */
export function checkboxColumn(field: string, code: string): string {
  return `${field}___${code.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

/** The form-status field REDCap adds to every instrument (0 incomplete, 1 unverified, 2 complete). */
export function completeField(form: string): string {
  return `${form}_complete`;
}
