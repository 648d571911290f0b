/**
 * What the HL7 v2 message screens show for a row: the status tag, the translated reason of a dead letter, the
 * list request from the filters, and the raw text split into segments for display (pure, unit-tested).
 */
import type { Hl7MessageListRequest, Hl7MessageStatus } from '@esource/shared';

export const HL7_STATUS_KEY: Record<Hl7MessageStatus, 'received' | 'stored' | 'deadLetter' | 'replayed'> = {
  0: 'received',
  1: 'stored',
  2: 'deadLetter',
  3: 'replayed',
};
export const HL7_STATUS_COLOR: Record<Hl7MessageStatus, string> = { 0: 'processing', 1: 'success', 2: 'error', 3: 'cyan' };
export const DEAD_LETTER: Hl7MessageStatus = 2;

/** Error codes with a translated reason (hl7:reason.<code>); any other code is shown with the generic reason. */
export const HL7_REASON_CODES = [
  'NO_MSH',
  'EMPTY',
  'BAD_ENCODING',
  'BAD_CHARSET',
  'TOO_LARGE',
  'NOT_FRAMED',
  'INCOMPLETE',
  'UNKNOWN_SENDER',
  'PROCESSING',
  'PARSE',
  'BAD_SEGMENT',
  'NO_CONTROL_ID',
  'NO_MESSAGE_TYPE',
  'GONE',
] as const;
const KNOWN = new Set<string>(HL7_REASON_CODES);

/** The i18n key of an error code's reason: `reason.<code>` for a known code, `reason.other` otherwise. */
export function reasonKey(code: string | null): string | null {
  if (!code) return null;
  return KNOWN.has(code) ? `reason.${code}` : 'reason.other';
}

/** ACK codes: AA accepted, AE error, AR rejected. */
export const ACK_COLOR: Record<string, string> = { AA: 'green', AE: 'orange', AR: 'red', CA: 'green', CE: 'orange', CR: 'red' };

export function statusOf(n: number): Hl7MessageStatus {
  return n === 0 || n === 1 || n === 2 || n === 3 ? n : 0;
}

export interface Hl7Filters {
  status?: Hl7MessageStatus;
  messageType?: string;
  controlId?: string;
  /** yyyy-mm-dd, inclusive */
  range?: [string, string];
}

/** The list request of the filters and page (blank filters left out; dates in the browser's time zone). */
export function listRequest(f: Hl7Filters, pageNumber: number, pageSize: number, timeZone: string): Hl7MessageListRequest {
  const type = f.messageType?.trim();
  const control = f.controlId?.trim();
  return {
    pageNumber,
    pageSize,
    ...(f.status === undefined ? {} : { status: f.status }),
    ...(type ? { messageType: type.toUpperCase() } : {}),
    ...(control ? { controlId: control } : {}),
    ...(f.range ? { from: f.range[0], to: f.range[1], timeZone } : {}),
  };
}

export function hasFilters(f: Hl7Filters): boolean {
  return f.status !== undefined || Boolean(f.messageType?.trim()) || Boolean(f.controlId?.trim()) || f.range !== undefined;
}

/** A segment for display: its id (MSH, PID, …) and the rest of the line exactly as received. */
export interface SegmentLine {
  id: string;
  rest: string;
}

/** Splits a segment into its 3-character id and the rest; a line that does not start with one keeps it all. */
export function segmentLine(s: string): SegmentLine {
  const m = /^([A-Z][A-Z0-9]{2})(?=\||$)/.exec(s);
  return m ? { id: m[1]!, rest: s.slice(3) } : { id: '', rest: s };
}

/** "Sending app / facility" for a row, without empty parts. */
export function senderOf(r: { sendingApp: string | null; sendingFacility: string | null }): string {
  return [r.sendingApp, r.sendingFacility].filter((x) => x && x.trim()).join(' / ');
}
