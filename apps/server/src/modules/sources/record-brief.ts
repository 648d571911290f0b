import type { SourceRecordBrief } from '@esource/shared';

/**
 * A source record as the screens show it without its raw payload (the record lists, pre-fill candidates, mapping
 * test): from a database row (effective_at a Date) or a pre-fill engine record (already an ISO string).
 */
export function recordBrief(r: Omit<SourceRecordBrief, 'effectiveAt'> & { effectiveAt: Date | string | null }): SourceRecordBrief {
  return {
    id: r.id,
    version: r.version,
    docType: r.docType,
    resourceType: r.resourceType,
    codeSystem: r.codeSystem,
    code: r.code,
    display: r.display,
    valueNum: r.valueNum,
    valueText: r.valueText,
    unit: r.unit,
    effectiveDate: r.effectiveDate,
    effectiveAt: r.effectiveAt instanceof Date ? r.effectiveAt.toISOString() : r.effectiveAt,
  };
}
