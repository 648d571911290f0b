import nlp from 'compromise';
import { span } from '../spans.js';
import type { DeidKind, DeidSpan, DetectorContext } from '../types.js';

const PATIENT_LABEL =
  /(?<![A-Za-z])(?:Patient(?:'s)?\s+Name|(?<!(?:Drug|Test|Product|Generic|Brand|Hospital|Study|Site|File|User)\s)Name|(?:(?:first|last|maiden|middle|family|given|full)\s+)?name(?:\s+is|\?)|Patient|Mr\.?|Mrs\.?|Ms\.?|Miss|Mother|Father|Spouse|Wife|Husband|Son|Daughter|Contact(?:\s+Person)?|Next\s+of\s+Kin|Guardian|Signed\s+by|Signature|Recorded\s+by)(?:[ \t]*[:：][ \t]*|[ \t]+)/gi;
const STAFF_LABEL =
  /(?<![A-Za-z])(?:Dr\.?|Doctor|Physician|Attending(?:\s+Physician)?|Surgeon|Consultant|Resident|Referring\s+(?:Physician|Doctor)|Provider|Pathologist|Radiologist|Pharmacist|Technologist|Signed(?=[ \t]*[:：])|Signature(?=[ \t]*[:：])|Approved\s+by|Authorized\s+by|Checked\s+by|Reported\s+by|Reviewed\s+by|Verified\s+by|Dictated\s+by|Transcribed\s+by|(?:Electronically\s+)?Signed\s+by\s+Dr\.?|Cosigned\s+by|Nurse|Prof\.?|Professor)(?:[ \t]*[:：][ \t]*|[ \t]+)/gi;
// one to four capitalised words or initials on one line, a space apart (a tab is a wide gap: the next field): John,
// O'Brien, Smith-Jones, J., SMITH
const NAME = /(?:[A-Z][a-zA-Z'’-]*[a-z'’-][a-zA-Z'’-]*|[A-Z]\.|[A-Z]{2,}(?:['’-][A-Z]+)?)(?: (?:[A-Z][a-zA-Z'’-]*[a-z'’-][a-zA-Z'’-]*|[A-Z]\.|[A-Z]{2,}(?:['’-][A-Z]+)?)){0,3}/y;
// a name followed by a clinical degree: Jane Doe, MD
const WITH_DEGREE = /(?<![A-Za-z])([A-Z][a-z'’-]+(?:[ \t]+(?:[A-Z]\.|[A-Z][a-zA-Z'’-]+)){1,3})(?:,[ \t]*|[ \t]+)(?:MD|M\.D\.|DO|D\.O\.|RN|NP|PA-C|MBBS|PhD)(?![A-Za-z])/g;
// capitalised words that follow labels but are not names
const NOT_NAME = new Set(
  ('Information Info History Name Age Sex Gender Date Dob ID No Number Report Summary Discharge Admission Admitted The This That Is Was Were Has Had ' +
    'Denies Reports Presents Presented States Stated Complains And Of In On At To For With Without Who Which Not No Yes Unknown Record Details ' +
    'Signature Signed Notes Note Was Will Should Please Education Instructions Demographics Consent Identifier Label Status Type Practitioner Assistant').split(' '),
);
const HONORIFIC = /^(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)+/;
// an honorific right after a label is a label of its own ("Physician: Dr. Lee"): the name follows it
const HONORIFIC_AHEAD = /^(?:Mr|Mrs|Ms|Miss|Dr|Prof)(?:\.|[ \t]|$)/;

function nameAfter(ctx: DetectorContext, pos: number): string {
  NAME.lastIndex = pos;
  const m = NAME.exec(ctx.text);
  if (!m) return '';
  const words = m[0].split(/[ \t]+/);
  const kept: string[] = [];
  for (const w of words) {
    if (NOT_NAME.has(w.replace(/\.$/, '')) || NOT_NAME.has(`${w.charAt(0)}${w.slice(1).toLowerCase()}`)) break;
    kept.push(w);
  }
  // keep the spacing as written: cut the match after the last kept word
  let len = 0;
  for (const w of kept) len = m[0].indexOf(w, len) + w.length;
  const name = m[0].slice(0, len);
  return /(?:^|[ \t])[A-Z]\.$/.test(name) ? name : name.replace(/[.'’-]+$/, '');
}

function labelled(ctx: DetectorContext, re: RegExp, kind: DeidKind, reason: string): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(re)) {
    const pos = m.index + m[0].length;
    if (HONORIFIC_AHEAD.test(ctx.text.slice(pos, pos + 5))) continue;
    const name = nameAfter(ctx, pos);
    if (name) out.push(span(ctx.text, pos, pos + name.length, kind, reason));
  }
  return out;
}

function nlpPeople(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  const people = nlp(ctx.text).people().json({ offset: true }) as { text: string; offset: { start: number; length: number } }[];
  for (const p of people) {
    let start = p.offset.start;
    let text = ctx.text.slice(start, start + p.offset.length);
    const honorific = HONORIFIC.exec(text);
    if (honorific) {
      start += honorific[0].length;
      text = text.slice(honorific[0].length);
    }
    // a bracket ends a name (OCR glues "O'Brien(daughter)"), and so does a tab (a wide gap: the next field)
    text = text.replace(/[([{\t\n].*$/s, '');
    text = text.replace(/(?<![A-Z])[\s.,;:!?)'’]+$|'s$|’s$/, '');
    if (/[A-Za-z]{2}/.test(text)) out.push(span(ctx.text, start, start + text.length, 'personName', 'name.nlp'));
  }
  return out;
}

/** Finds English person names: after labels and titles (Name:, Patient:, Dr., signed by …), before degrees (MD), and by NLP (compromise). */
export function detectEnglishNames(ctx: DetectorContext): DeidSpan[] {
  if (!/[A-Za-z]{2}/.test(ctx.text)) return [];
  const degree = [...ctx.text.matchAll(WITH_DEGREE)].map((m) => span(ctx.text, m.index, m.index + m[1]!.length, 'doctor', 'name.degree'));
  const staff = [...labelled(ctx, STAFF_LABEL, 'doctor', 'name.staffLabel'), ...degree];
  const people = [...labelled(ctx, PATIENT_LABEL, 'personName', 'name.label'), ...nlpPeople(ctx)];
  // a name the NLP found that is also a doctor's stays a doctor's
  const doctors = people.filter((p) => staff.some((s) => s.start < p.end && p.start < s.end)).map((p) => ({ ...p, kind: 'doctor' as const }));
  return [...staff, ...people.filter((p) => !doctors.some((d) => d.start === p.start)), ...doctors];
}
