/**
 * HL7 v2 acknowledgements (original mode): MSH with the sender and receiver swapped, MSA-1 (AA / AE / AR), MSA-2
 * (the incoming control id), MSA-3 (text), and for AE / AR an ERR segment (ERR-3 HL7 table 0357 code, ERR-4
 * severity E, ERR-5 our error code, ERR-8 the reason). Built with @medplum/core segments, from a parsed message or
 * from raw bytes whose MSH may be partial or missing (then the fields it lacks stay empty).
 */
import { formatHl7DateTime, Hl7Context, Hl7Message, Hl7Segment } from '@medplum/core';
import { escapeHl7, HL7_ERROR_INFO, type Hl7Error, partialMsh } from './hl7-message';
import type { Hl7ParseResult } from './hl7-to-records';

/** The acknowledgement codes of original-mode ACKs. */
export type Hl7AckCode = 'AA' | 'AE' | 'AR';

/** Options of buildAck. */
export interface Hl7AckOptions {
  /** the error being acknowledged (sets ERR-3 / ERR-5 and the default text) */
  error?: Hl7Error | { code: string; message: string };
  /** the ACK's own control id (MSH-10); default a time-based id */
  ackControlId?: string;
  /** clock for MSH-7 (tests) */
  now?: Date;
}

const DEFAULT_TEXT: Readonly<Record<Hl7AckCode, string>> = {
  AA: 'Message accepted',
  AE: 'Application error',
  AR: 'Application reject',
};
/** HL7 table 0357 codes of a receiver's own refusals (not parser errors): framing, routing. */
const RECEIVER_ERROR_INFO: Readonly<Record<string, { hl7Code: string; hl7Text: string }>> = {
  NOT_FRAMED: { hl7Code: '100', hl7Text: 'Segment sequence error' },
  INCOMPLETE: { hl7Code: '100', hl7Text: 'Segment sequence error' },
  UNKNOWN_SENDER: { hl7Code: '204', hl7Text: 'Unknown key identifier' },
};
let ackCounter = 0;

function isParseResult(v: unknown): v is Hl7ParseResult {
  return typeof v === 'object' && v !== null && 'message' in v && v.message instanceof Hl7Message;
}

/**
 * Builds the ACK text (CR segment ends, no MLLP framing) for an incoming message.
 * @param incoming - the parsed result, the @medplum/core message, or the raw text/bytes (possibly broken)
 * @param code - AA when the message is stored, AE / AR with the reason otherwise
 * @param text - MSA-3 / ERR-8 text; default the error's message or a standard phrase
 */
export function buildAck(
  incoming: Hl7ParseResult | Hl7Message | string | Uint8Array | undefined,
  code: Hl7AckCode,
  text?: string,
  options: Hl7AckOptions = {},
): string {
  const msh = isParseResult(incoming)
    ? incoming.message.header
    : incoming instanceof Hl7Message
      ? incoming.header
      : partialMsh(incoming);
  const ctx = msh?.context ?? new Hl7Context();
  const get = (field: number): string => {
    const f = msh?.getField(field);
    return f ? f.toString() : '';
  };
  const now = options.now ?? new Date();
  const trigger = msh?.getField(9)?.getComponent(2) ?? '';
  const messageType = trigger ? `ACK${ctx.componentSeparator}${trigger}${ctx.componentSeparator}ACK` : 'ACK';
  const version = msh?.getField(12)?.getComponent(1) || '2.5.1';
  const processingId = msh?.getField(11)?.getComponent(1) || 'P';
  const ackId =
    options.ackControlId ??
    `ACK${now.getTime()}${(ackCounter = (ackCounter + 1) % 1000).toString().padStart(3, '0')}`;
  const reason = text ?? options.error?.message ?? DEFAULT_TEXT[code];
  const field = (s: string): string => escapeHl7(s, ctx);

  const segments = [
    new Hl7Segment(
      [
        'MSH',
        ctx.getMsh2(),
        get(5),
        get(6),
        get(3),
        get(4),
        formatHl7DateTime(now),
        '',
        messageType,
        field(ackId),
        processingId,
        version,
      ],
      ctx,
    ),
    new Hl7Segment(['MSA', code, get(10), field(reason.slice(0, 80))], ctx),
  ];
  if (code !== 'AA') {
    const errCode = options.error?.code;
    const info = (errCode &&
      (HL7_ERROR_INFO[errCode as keyof typeof HL7_ERROR_INFO] ?? RECEIVER_ERROR_INFO[errCode])) || {
      hl7Code: '207',
      hl7Text: 'Application internal error',
    };
    const s = ctx.componentSeparator;
    segments.push(
      new Hl7Segment(
        [
          'ERR',
          '',
          '',
          `${info.hl7Code}${s}${info.hl7Text}${s}HL70357`,
          'E',
          errCode ? field(errCode) : '',
          '',
          '',
          field(reason.slice(0, 250)),
        ],
        ctx,
      ),
    );
  }
  return new Hl7Message(segments, ctx).toString();
}

/** The ACK for an error thrown by parseHl7: AR or AE as the error's code says, with the reason. */
export function buildErrorAck(
  incoming: string | Uint8Array | undefined,
  error: Hl7Error,
  options: Omit<Hl7AckOptions, 'error'> = {},
): string {
  return buildAck(incoming, error.ackCode, error.message, { ...options, error });
}
