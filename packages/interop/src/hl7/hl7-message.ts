/**
 * Reading an HL7 v2 message off the wire: bytes or text → a checked @medplum/core Hl7Message, or an Hl7Error with a
 * code the listener answers with (AR for a message that cannot be read at all, AE for one missing a required field).
 *
 * Accepted: CR, LF or CRLF segment ends; a UTF-8 byte-order mark; MLLP framing bytes left around the message; UTF-8
 * text, or ISO 8859-1 / 8859-15 / GB 18030 / BIG-5 when MSH-18 says so (any other MSH-18 is refused). This file is
 * the one place that reads MSH off the wire and decodes by character set (the server's MLLP listener uses it too).
 * Parsing itself is @medplum/core's Hl7Message.parse.
 */
import { Hl7Context, Hl7Message, Hl7Segment, parseHl7DateTime } from '@medplum/core';

/** Why a message could not be read. */
export type Hl7ErrorCode =
  | 'EMPTY' // nothing but whitespace / framing
  | 'NO_MSH' // the first segment is not MSH
  | 'BAD_CHARSET' // MSH-18 names a character set we do not read
  | 'BAD_ENCODING' // not valid text in its character set, binary content, or unusable MSH-1/MSH-2 delimiters
  | 'BAD_SEGMENT' // a segment whose name is not three capital letters/digits (a cut or garbled message)
  | 'NO_MESSAGE_TYPE' // MSH-9 empty
  | 'NO_CONTROL_ID'; // MSH-10 empty

/** HL7 table 0357 error code and the acknowledgement code for each Hl7ErrorCode. */
export const HL7_ERROR_INFO: Readonly<
  Record<Hl7ErrorCode, { ack: 'AE' | 'AR'; hl7Code: string; hl7Text: string }>
> = {
  EMPTY: { ack: 'AR', hl7Code: '100', hl7Text: 'Segment sequence error' },
  NO_MSH: { ack: 'AR', hl7Code: '100', hl7Text: 'Segment sequence error' },
  BAD_CHARSET: { ack: 'AR', hl7Code: '102', hl7Text: 'Data type error' },
  BAD_ENCODING: { ack: 'AR', hl7Code: '102', hl7Text: 'Data type error' },
  BAD_SEGMENT: { ack: 'AE', hl7Code: '100', hl7Text: 'Segment sequence error' },
  NO_MESSAGE_TYPE: { ack: 'AE', hl7Code: '101', hl7Text: 'Required field missing' },
  NO_CONTROL_ID: { ack: 'AE', hl7Code: '101', hl7Text: 'Required field missing' },
};

/** A message that cannot be taken, with the code and the acknowledgement code to answer with. */
export class Hl7Error extends Error {
  override readonly name = 'Hl7Error';
  /** 'AR' (rejected: unreadable) or 'AE' (error: a required part is missing) */
  readonly ackCode: 'AE' | 'AR';
  constructor(
    readonly code: Hl7ErrorCode,
    message: string,
  ) {
    super(message);
    this.ackCode = HL7_ERROR_INFO[code].ack;
  }
}

/**
 * MSH-18 values (HL7 table 0211, as Chinese hospital systems send them) → TextDecoder label; 'latin1' is decoded
 * with Buffer (true ISO 8859-1: TextDecoder's 'latin1' is windows-1252). An empty MSH-18 means UTF-8 (ASCII is a
 * subset). Any other value is refused (BAD_CHARSET): never guessed.
 */
const CHARSETS: Readonly<Record<string, string>> = {
  '': 'utf-8',
  ASCII: 'utf-8',
  'ISO IR6': 'utf-8',
  'UNICODE UTF-8': 'utf-8',
  'UTF-8': 'utf-8',
  UTF8: 'utf-8',
  '8859/1': 'latin1',
  'ISO IR100': 'latin1',
  '8859/2': 'iso-8859-2',
  '8859/3': 'iso-8859-3',
  '8859/4': 'iso-8859-4',
  '8859/5': 'iso-8859-5',
  '8859/6': 'iso-8859-6',
  '8859/7': 'iso-8859-7',
  '8859/8': 'iso-8859-8',
  '8859/9': 'iso-8859-9',
  '8859/15': 'iso-8859-15',
  'GB 18030-2000': 'gb18030',
  GB18030: 'gb18030',
  // not in HL7 table 0211, but what many Chinese hospital interfaces declare; GB 18030 decodes both
  GBK: 'gb18030',
  GB2312: 'gb18030',
  'GB 2312': 'gb18030',
  'BIG-5': 'big5',
  BIG5: 'big5',
};

function stripFrame(text: string): string {
  let t = text;
  if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
  // MLLP start block (0x0B) / end block (0x1C) left by a sender, and surrounding blank lines
  // eslint-disable-next-line no-control-regex -- the MLLP framing bytes are control characters
  return t.replace(/^[\s\x0b]+/, '').replace(/[\s\x1c]+$/, '');
}

/** The header fields a receiver needs before (or without) a full parse: routing, environment, acknowledgement. */
export interface Hl7Header {
  /** MSH-3 namespace id (else universal id) */
  sendingApp: string;
  /** MSH-4 namespace id (else universal id) */
  sendingFacility: string;
  /** MSH-9 as MSG^EVT (e.g. ORU^R01) */
  messageType: string;
  /** MSH-10 */
  controlId: string;
  /** MSH-11 first component, upper case: P production, T training, D debugging */
  processingId: string;
  /** MSH-18 as sent (first repetition) */
  charset: string;
}

/** The first line of the bytes (after a UTF-8 byte-order mark, MLLP start byte and blank lines), as Latin-1 text. */
function firstLine(input: string | Uint8Array): string {
  if (typeof input === 'string') return stripFrame(input).split(/[\r\n]/, 1)[0] ?? '';
  let start = 0;
  if (input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) start = 3;
  while (start < input.length && (input[start] === 0x0d || input[start] === 0x0a || input[start] === 0x20 || input[start] === 0x0b)) start++;
  let end = start;
  while (end < input.length && input[end] !== 0x0d && input[end] !== 0x0a) end++;
  return Buffer.from(input.buffer, input.byteOffset + start, end - start).toString('latin1');
}

/**
 * The MSH header fields of a message (text or bytes, possibly broken or in any character set: the MSH fields are
 * read as Latin-1), or null when it does not start with MSH. Never throws.
 */
export function readHl7Header(input: string | Uint8Array): Hl7Header | null {
  const line = firstLine(input);
  if (!line.startsWith('MSH') || line.length < 8) return null;
  const comp = line[4]!;
  const rep = line[5]!;
  // MSH-1 is the separator itself: fields[n - 1] is MSH-n
  const fields = line.split(line[3]!);
  const first = (v: string | undefined) => (v ?? '').split(rep)[0]!.split(comp);
  /** HD: namespace id, else universal id */
  const hd = (v: string | undefined) => {
    const c = first(v);
    return (c[0]?.trim() || c[1]?.trim()) ?? '';
  };
  const type = first(fields[8]);
  return {
    sendingApp: hd(fields[2]),
    sendingFacility: hd(fields[3]),
    messageType: [type[0], type[1]].filter((x) => x && x.trim()).map((x) => x!.trim()).join('^'),
    controlId: (fields[9] ?? '').trim(),
    processingId: (first(fields[10])[0] ?? '').trim().toUpperCase(),
    charset: (fields[17] ?? '').split(rep)[0]!.trim(),
  };
}

/**
 * Bytes → text in the character set MSH-18 declares (UTF-8 when there is no MSH or no MSH-18); a UTF-8 byte-order
 * mark is dropped. An unknown MSH-18 is BAD_CHARSET, bytes that are not valid in the character set BAD_ENCODING.
 */
export function decodeHl7(input: string | Uint8Array): string {
  if (typeof input === 'string') return input;
  let bytes = input;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new Hl7Error('BAD_ENCODING', 'UTF-16 is not an HL7 v2 wire encoding');
  }
  const declared = readHl7Header(bytes)?.charset ?? '';
  const charset = CHARSETS[declared.toUpperCase()];
  if (!charset) throw new Hl7Error('BAD_CHARSET', `character set MSH-18 '${declared.slice(0, 40)}' is not supported`);
  if (charset === 'latin1') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  try {
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    throw new Hl7Error('BAD_ENCODING', `the bytes are not valid ${charset === 'utf-8' ? 'UTF-8' : charset} (MSH-18 '${declared}')`);
  }
}

/**
 * Parses and checks one message (text or bytes) with @medplum/core. Throws Hl7Error.
 * @returns the message and its normalised text (CR segment ends, no BOM or framing)
 */
export function readHl7Message(input: string | Uint8Array): { message: Hl7Message; text: string } {
  const decoded = decodeHl7(input);
  const text = stripFrame(decoded);
  if (!text) throw new Hl7Error('EMPTY', 'the message is empty');
  // binary content: C0 controls other than CR/LF/TAB, or Unicode replacement characters left by a lenient decoder
  // eslint-disable-next-line no-control-regex -- binary data is detected by its control characters
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]/.test(text))
    throw new Hl7Error('BAD_ENCODING', 'the message contains binary data');
  if (!text.startsWith('MSH')) throw new Hl7Error('NO_MSH', 'the message does not start with an MSH segment');
  const delims = text.slice(3, 8);
  const fieldSep = delims.charAt(0);
  if (!fieldSep || /[A-Za-z0-9\s]/.test(fieldSep) || delims.length < 5)
    throw new Hl7Error('BAD_ENCODING', 'MSH-1/MSH-2 delimiters are missing or unusable');
  const enc = delims.slice(1, 5);
  if (/[A-Za-z0-9\s]/.test(enc) || new Set(delims).size !== 5)
    throw new Hl7Error('BAD_ENCODING', 'MSH-2 encoding characters are missing or repeated');
  const lines = text.split(/\r\n|\r|\n/).filter((l) => l.trim().length > 0);
  const normalised = lines.join('\r');
  const message = Hl7Message.parse(normalised);
  for (const [i, seg] of message.segments.entries()) {
    if (!/^[A-Z][A-Z0-9]{2}$/.test(seg.name))
      throw new Hl7Error('BAD_SEGMENT', `segment ${i + 1} has no valid name ('${seg.name.slice(0, 10)}')`);
  }
  const msh = message.header;
  if (!msh.getComponent(9, 1)) throw new Hl7Error('NO_MESSAGE_TYPE', 'MSH-9 (message type) is empty');
  if (!msh.getField(10)?.toString().trim())
    throw new Hl7Error('NO_CONTROL_ID', 'MSH-10 (message control id) is empty');
  return { message, text: normalised };
}

/**
 * Best-effort MSH of a message that may be broken (for the ACK of a rejected message): the first line that starts
 * with MSH, parsed with its own delimiters when they are usable, else with the standard ones. Never throws.
 */
export function partialMsh(input: string | Uint8Array | undefined): Hl7Segment | undefined {
  if (input === undefined) return undefined;
  // the MSH of a message is near its start: a large message's body is not decoded for its ACK
  const text =
    typeof input === 'string'
      ? input
      : Buffer.from(input.buffer, input.byteOffset, Math.min(input.byteLength, 65536)).toString('utf8');
  const line = stripFrame(text)
    .split(/\r\n|\r|\n/)
    .find((l) => l.startsWith('MSH'));
  if (!line) return undefined;
  const d = line.slice(3, 8);
  if (d.length !== 5 || /[A-Za-z0-9\s]/.test(d) || new Set(d).size !== 5) return undefined;
  try {
    return Hl7Segment.parse(line, new Hl7Context('\r', d[0], d[1], d[2], d[3], d[4]));
  } catch {
    return undefined;
  }
}

/** Undoes HL7 escape sequences in a text value (\F\ \S\ \T\ \R\ \E\, \.br\ → newline, \Xhh\ hex). */
export function unescapeHl7(value: string, ctx: Hl7Context): string {
  if (!value.includes(ctx.escapeCharacter)) return value;
  const e = ctx.escapeCharacter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return value.replace(new RegExp(`${e}([^${e}]*)${e}`, 'g'), (_m, seq: string) => {
    switch (seq) {
      case 'F':
        return ctx.fieldSeparator;
      case 'S':
        return ctx.componentSeparator;
      case 'T':
        return ctx.subcomponentSeparator;
      case 'R':
        return ctx.repetitionSeparator;
      case 'E':
        return ctx.escapeCharacter;
      case '.br':
        return '\n';
      default:
        if (/^X[0-9A-Fa-f]+$/.test(seq)) return Buffer.from(seq.slice(1), 'hex').toString('utf8');
        return '';
    }
  });
}

/** Escapes text for an HL7 field with the message's delimiters. */
export function escapeHl7(value: string, ctx: Hl7Context): string {
  let out = '';
  for (const ch of value.replace(/\r\n|\r|\n/g, ' ')) {
    if (ch === ctx.escapeCharacter) out += `${ctx.escapeCharacter}E${ctx.escapeCharacter}`;
    else if (ch === ctx.fieldSeparator) out += `${ctx.escapeCharacter}F${ctx.escapeCharacter}`;
    else if (ch === ctx.componentSeparator) out += `${ctx.escapeCharacter}S${ctx.escapeCharacter}`;
    else if (ch === ctx.subcomponentSeparator) out += `${ctx.escapeCharacter}T${ctx.escapeCharacter}`;
    else if (ch === ctx.repetitionSeparator) out += `${ctx.escapeCharacter}R${ctx.escapeCharacter}`;
    else out += ch;
  }
  return out;
}

const TS_RE = /^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\.\d{1,4})?([+-]\d{4})?$/;

const zoneFormats = new Map<string, Intl.DateTimeFormat>();
/** ms that the wall clock of `timeZone` is ahead of UTC at the instant t */
function zoneAheadMs(timeZone: string, t: number): number {
  let f = zoneFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    zoneFormats.set(timeZone, f);
  }
  const n: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(t))) if (p.type !== 'literal') n[p.type] = Number(p.value);
  const wall = Date.UTC(n.year ?? 0, (n.month ?? 1) - 1, n.day ?? 1, n.hour ?? 0, n.minute ?? 0, n.second ?? 0);
  return wall - Math.floor(t / 1000) * 1000;
}

/**
 * The UTC offset ('+0800', '-0400') of an IANA time zone at a wall-clock time in it (so daylight saving time counts:
 * America/New_York is -0500 in January, -0400 in July); null for a name Intl does not know.
 */
export function zoneOffsetAt(timeZone: string, year: number, month: number, day: number, hour = 0, minute = 0): string | null {
  try {
    const wall = Date.UTC(year, month - 1, day, hour, minute);
    // the offset at the wall time read as UTC, then again at the instant it gives (right across a DST change)
    const ahead = zoneAheadMs(timeZone, wall - zoneAheadMs(timeZone, wall));
    const minutes = Math.round(ahead / 60_000);
    const abs = Math.abs(minutes);
    return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  } catch {
    return null;
  }
}

/**
 * An HL7 TS/DTM → effectiveDate (YYYY-MM-DD as written, no zone shift) and effectiveAt (ISO instant, when the
 * value has at least hours and minutes). A value without an offset is read in `defaultTz`: an offset ('+0800') or an
 * IANA time zone ('Asia/Shanghai', its offset on that day); without one, in UTC.
 */
export function hl7DateParts(
  ts: string | undefined,
  defaultTz?: string,
): { effectiveAt?: string; effectiveDate?: string } {
  const v = ts?.trim();
  if (!v) return {};
  const m = TS_RE.exec(v);
  if (!m || !m[2] || !m[3]) return {};
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return {};
  const out: { effectiveAt?: string; effectiveDate?: string } = { effectiveDate: `${m[1]}-${m[2]}-${m[3]}` };
  if (m[4] && m[5]) {
    let tzOffset = defaultTz;
    if (defaultTz && !/^[+-]\d{4}$/.test(defaultTz)) tzOffset = zoneOffsetAt(defaultTz, Number(m[1]), month, day, Number(m[4]), Number(m[5])) ?? undefined;
    const iso = parseHl7DateTime(v, tzOffset ? { tzOffset } : undefined);
    if (iso && !Number.isNaN(Date.parse(iso))) out.effectiveAt = iso;
  }
  return out;
}
