import { detectAddresses } from './detectors/address.js';
import { detectBirthDates, findDates } from './detectors/dates.js';
import { detectEmails } from './detectors/email.js';
import { detectHospitals } from './detectors/hospital.js';
import { detectIdCards } from './detectors/id-card.js';
import { detectKeywords } from './detectors/keywords.js';
import { detectChineseNames } from './detectors/names-zh.js';
import { detectEnglishNames } from './detectors/names-en.js';
import { detectPhones } from './detectors/phone.js';
import { detectRecordNumbers } from './detectors/record-number.js';
import { detectSubjectIdentifiers } from './detectors/subject.js';
import { foldOcrZero, foldWidth } from './normalize.js';
import { segment } from './segmenter.js';
import { mergeSpans } from './spans.js';
import { DEFAULT_POLICY, type DeidOptions, type DeidSpan, type DetectorContext, type Token } from './types.js';

/** Builds the detectors' shared view of a text: width-folded, OCR's zero-for-O folded, segmented on first use. */
export function createContext(input: string): DetectorContext {
  const text = foldOcrZero(foldWidth(input));
  let tokens: Token[] | undefined;
  return { text, tokens: () => (tokens ??= segment(text)) };
}

/**
 * Finds what identifies a person in text: the subject's known identifiers, ID card and phone numbers, record
 * numbers, names, addresses, e-mail, dates per policy, hospitals and doctors per policy and the project's keywords.
 * Returns sorted, disjoint spans with offsets into `input`.
 */
export function detectIdentifiers(input: string, options: DeidOptions = {}): DeidSpan[] {
  const policy = { ...DEFAULT_POLICY, ...options.policy };
  const ctx = createContext(input);
  const dates = policy.maskBirthDates || policy.maskOtherDates ? findDates(ctx) : [];
  const allNames = [...detectChineseNames(ctx), ...detectEnglishNames(ctx)];
  const doctors = allNames.filter((n) => n.kind === 'doctor');
  // with doctors unmasked, a doctor's name that another rule also took for a person's stays visible too
  const names = policy.maskDoctorNames ? allNames : allNames.filter((n) => !doctors.some((d) => d.start < n.end && n.start < d.end));
  const found: DeidSpan[] = [
    ...detectSubjectIdentifiers(ctx, options.subject),
    ...detectKeywords(ctx, options.keywords ?? []),
    ...detectIdCards(ctx),
    ...detectPhones(ctx),
    ...detectRecordNumbers(ctx),
    ...detectEmails(ctx),
    ...detectAddresses(ctx),
    ...names,
    ...(policy.maskBirthDates ? detectBirthDates(ctx, dates) : []),
    ...(policy.maskOtherDates ? dates : []),
    ...(policy.maskHospitalNames ? detectHospitals(ctx) : []),
  ];
  // span texts come from the input, not from the width-folded copy
  return mergeSpans(input, found).map((s) => ({ ...s, text: input.slice(s.start, s.end) }));
}
