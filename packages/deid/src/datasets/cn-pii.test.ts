import { describe, expect, it } from 'vitest';
import { detectIdentifiers } from '../detect.js';
import { isValidIdCard18 } from '../detectors/id-card.js';
import type { DeidKind } from '../types.js';
import { fixture } from './load-fixture.js';

type Cases = [string, number][];
interface Suite {
  cases: Cases;
  valid?: string[];
  invalid?: string[];
}
const data = JSON.parse(fixture('cn_pii_anonymization/cn_pii_recognizer_cases.json')) as Record<string, Suite>;

function count(text: string, kinds: readonly DeidKind[]): number {
  return detectIdentifiers(text, {}).filter((s) => kinds.includes(s.kind)).length;
}

// neednlab/cn_pii_anonymization's recognizer tests, run against this package's detectors
describe('cn_pii_anonymization cases', () => {
  it.each(data.phone!.cases)('mobile: %s → %i', (text, n) => expect(count(text, ['phone', 'landline'])).toBe(n));
  it.each(data.phone!.valid!)('valid mobile alone: %s', (text) => expect(count(text, ['phone'])).toBe(1));
  it.each(data.phone!.invalid!)('invalid mobile alone: %s', (text) => expect(count(text, ['phone', 'landline'])).toBe(0));

  it.each(data.idCard!.cases)('ID card: %s → %i', (text, n) => expect(count(text, ['idCard'])).toBe(n));
  it.each(data.idCard!.valid!)('valid ID: %s', (id) => expect(isValidIdCard18(id)).toBe(true));
  // a recogniser's "not an ID" is still masked by a redactor when it stands under an ID label (OCR misreads a digit),
  // and without a label when only the check digit is wrong (province and birth date hold)
  it.each(data.idCard!.invalid!)('invalid ID (checksum, date, province): %s', (id) => {
    expect(isValidIdCard18(id)).toBe(false);
    expect(count(`身份证号 ${id}`, ['idCard'])).toBe(1);
    const v = id.replace(/ /g, '');
    const shape = /^(11|12|13|14|15|21|22|23|31|32|33|34|35|36|37|41|42|43|44|45|46|50|51|52|53|54|61|62|63|64|65|71|81|82|83|91)\d{4}(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])/.test(v);
    expect(count(`流水号 ${id}`, ['idCard'])).toBe(shape ? 1 : 0);
  });

  it.each(data.email!.cases)('e-mail: %s → %i', (text, n) => expect(count(text, ['email'])).toBe(n));
  it.each(data.email!.invalid!)('invalid e-mail: "%s"', (text) => expect(count(text, ['email'])).toBe(0));

  it.each(data.mixed!.cases)('phone and e-mail together: %s → %i', (text, n) => expect(count(text, ['phone', 'email'])).toBe(n));
  it.each(data.noPii!.cases)('no PII at all: %s', (text, n) => expect(detectIdentifiers(text, {})).toHaveLength(n));
  it.each(data.notIdOrPhone!.cases)('bank card / code, neither ID nor phone: %s', (text, n) =>
    expect(count(text, ['idCard', 'phone', 'landline'])).toBe(n),
  );
});
