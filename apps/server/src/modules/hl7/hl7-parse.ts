/**
 * The one place the listener meets the HL7 v2 parser of packages/interop (parseHl7 → patient and source records):
 * the connection's identifier systems become the parser's identifier rules, and the parser's Hl7Error becomes a
 * ParseFailure with the ACK code the parser chose (AR unreadable, AE a required field missing).
 */
import { Hl7Error, parseHl7, type ExtractedPatient, type ExtractedRecord, type IdentifierType } from '@esource/interop';

export interface ParsedForIngest {
  messageType: string;
  controlId: string;
  patient: ExtractedPatient | null;
  records: ExtractedRecord[];
}

export class ParseFailure extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly ackCode: 'AE' | 'AR',
  ) {
    super(`${code}: ${detail}`);
  }
}

/** config.identifierSystems of an 'hl7v2' connection: CX-4 assigning authority → identifier type. */
export function identifierRulesOf(config: Record<string, unknown> | null | undefined): Record<string, IdentifierType> | undefined {
  const list = config?.identifierSystems;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: Record<string, IdentifierType> = {};
  for (const x of list as { system?: unknown; type?: unknown }[]) {
    if (typeof x.system === 'string' && typeof x.type === 'string') out[x.system] = x.type as IdentifierType;
  }
  return out;
}

/** `timeZone`: the IANA zone that times without an offset are read in (the project's; HL7 v2 times are the sender's local time) */
export function parseForIngest(text: string, config?: Record<string, unknown> | null, timeZone?: string): ParsedForIngest {
  const systems = identifierRulesOf(config);
  try {
    const p = parseHl7(text, { ...(systems ? { identifierRules: { systems } } : {}), ...(timeZone ? { defaultTzOffset: timeZone } : {}) });
    return { messageType: p.messageType, controlId: p.controlId, patient: p.patient ?? null, records: p.records };
  } catch (err) {
    if (err instanceof Hl7Error) throw new ParseFailure(err.code, err.message.slice(0, 900), err.ackCode);
    // not a message error of the parser: a library fault, logged; the row and the ACK get a fixed line
    console.warn(`[mllp] parser failure: ${(err as Error).message}`);
    throw new ParseFailure('PARSE', 'the message could not be parsed', 'AR');
  }
}
