import { span } from '../spans.js';
import type { DeidKind, DeidSpan, DetectorContext } from '../types.js';

const LABELS: readonly { kind: DeidKind; reason: string; label: string }[] = [
  { kind: 'inpatientNo', reason: 'record.inpatient', label: '住院号|住院流水号|住院病历号|Inpatient\\s*(?:No\\.?|Number|ID|#)|Admission\\s*(?:No\\.?|Number|#)|IP\\s*No\\.?' },
  { kind: 'outpatientNo', reason: 'record.outpatient', label: '门诊号|门急诊号|急诊号|门诊病历号|Outpatient\\s*(?:No\\.?|Number|ID|#)|OP\\s*No\\.?' },
  {
    kind: 'medicalRecordNo',
    reason: 'record.medical',
    label:
      '病案号|病历号|档案号|ID号|登记号|就诊号|就诊卡号|诊疗卡号|医保卡号|医保号|医保编号|社保号|社保卡号|健康卡号|患者ID|病人ID|MRN|Account\\s*(?:No\\.?|Number|#)?|Acct\\.?|Member\\s*(?:ID|No\\.?|Number)|Subscriber\\s*(?:ID|No\\.?)|Policy\\s*(?:No\\.?|Number|#)|Insurance\\s*(?:ID|No\\.?|Number)|Medical\\s*Record\\s*(?:No\\.?|Number|#)|Hospital\\s*(?:No\\.?|Number)|Patient\\s*(?:ID|No\\.?|Number)|Case\\s*(?:No\\.?|Number)|Visit\\s*(?:No\\.?|Number)|Encounter\\s*(?:No\\.?|Number)',
  },
];

// label, separators, then the value: letters, digits and inner dashes; the value span only
const PATTERNS = LABELS.map((l) => ({
  ...l,
  re: new RegExp(`(?<![A-Za-z])(?:${l.label})\\s*(?:[:：#=]|No\\.?)?\\s*(?<value>[A-Za-z0-9](?:[A-Za-z0-9/-]{0,28}[A-Za-z0-9])?)(?![A-Za-z0-9])`, 'gi'),
}));

/** Finds medical record, inpatient and outpatient numbers by the label in front of them. */
export function detectRecordNumbers(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const p of PATTERNS) {
    for (const m of ctx.text.matchAll(p.re)) {
      const value = m.groups?.value ?? '';
      // a record number has a digit; "Patient No." followed by a word is not one
      if (!/\d/.test(value)) continue;
      const start = m.index + m[0].length - value.length;
      out.push(span(ctx.text, start, start + value.length, p.kind, p.reason));
    }
  }
  return out;
}
