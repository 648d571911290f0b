import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/**
 * HL7 v2 messages received by the MLLP listener (issue 11 item 1): the list with the dead letters, the raw message
 * as received, replay of a dead letter and the badge count. Project routes see the messages routed to the project
 * in the request's environment; the system routes (system administrators) see those no project could be found for
 * (unknown sender, unreadable header).
 */

/** 0 received (not processed yet), 1 stored (ACK AA), 2 dead letter (AE/AR), 3 replayed and stored */
export const HL7_MESSAGE_STATUSES = [0, 1, 2, 3] as const;
export type Hl7MessageStatus = (typeof HL7_MESSAGE_STATUSES)[number];

export const hl7MessageListRequest = pageRequest
  .extend({
    status: intSchema(0, 3).optional(),
    /** MSH-9 prefix, e.g. ORU or ORU^R01 */
    messageType: z.string().trim().max(20).optional(),
    /** MSH-10, exact */
    controlId: z.string().trim().max(200).optional(),
    /** first and last day (yyyy-mm-dd, inclusive) of the receiving date, in the time zone `timeZone` */
    from: dateSchema.optional(),
    to: dateSchema.optional(),
    timeZone: z.string().max(64).optional(),
  })
  .refine((v) => !v.from || !v.to || v.from <= v.to, { message: 'validation.startAfterEnd', path: ['from'] });
export type Hl7MessageListRequest = z.input<typeof hl7MessageListRequest>;

export const hl7MessageRow = z.object({
  id: z.number().int(),
  status: z.number().int(),
  ackCode: z.string().nullable(),
  /** why it is a dead letter: NO_MSH, EMPTY, BAD_CHARSET, BAD_ENCODING, UNKNOWN_SENDER, TOO_LARGE, NOT_FRAMED, INCOMPLETE, PROCESSING, or a parser code */
  errorCode: z.string().nullable(),
  errorDetail: z.string().nullable(),
  controlId: z.string().nullable(),
  messageType: z.string().nullable(),
  sendingApp: z.string().nullable(),
  sendingFacility: z.string().nullable(),
  remote: z.string().nullable(),
  env: z.string().nullable(),
  connectionId: z.number().int().nullable(),
  connectionName: z.string().nullable(),
  /** source records stored from it */
  records: z.number().int(),
  /** bytes as received */
  size: z.number().int(),
  receivedAt: z.string(),
  processedAt: z.string().nullable(),
  replayedAt: z.string().nullable(),
  replayedByName: z.string().nullable(),
});
export type Hl7MessageRow = z.infer<typeof hl7MessageRow>;
export const hl7MessagePage = pageResult(hl7MessageRow);
export type Hl7MessagePage = z.infer<typeof hl7MessagePage>;

export const hl7MessageIdRequest = z.object({ id: idSchema });

export const hl7MessageDetail = hl7MessageRow.extend({
  /** the message as received, decoded by its character set (MSH-18); a byte-order mark is not shown */
  text: z.string(),
  /** its segments, split at the segment ends it came with (CR, LF or CR LF) */
  segments: z.array(z.string()),
  /** false: the bytes are not valid in their character set, shown with replacement characters */
  exact: z.boolean(),
  /** it began with a UTF-8 byte-order mark */
  bom: z.boolean(),
  /** how its segments ended: 'CR' (the standard), 'LF', 'CRLF', 'mixed' or 'none' */
  lineEnds: z.enum(['CR', 'LF', 'CRLF', 'mixed', 'none']),
});
export type Hl7MessageDetail = z.infer<typeof hl7MessageDetail>;

export const hl7MessageCount = z.object({
  /** dead letters waiting for someone (status 2) */
  deadLetters: z.number().int(),
  /** received and not processed yet (status 0) */
  received: z.number().int(),
});
export type Hl7MessageCount = z.infer<typeof hl7MessageCount>;
