/**
 * Streaming FHIR readers that never hold a whole file in memory: a Bundle's entry[] through a byte-level scanner
 * (one entry's bytes held at a time, each entry JSON.parsed on its own) and Bulk Data NDJSON line by line. Both report
 * a bad entry or line as an error item (with its index, line and byte offset) and carry on with the rest; only a
 * structural syntax error of the Bundle (a mismatched bracket, a cut-off file, garbage after it) ends that Bundle
 * (JSON cannot be resynchronised), as a fatal error item after everything before it.
 */
import type { Readable } from 'node:stream';
import { FhirBatchConverter, type FhirBatchOutput, type FhirBatchSummary } from './fhir-batch';
import type { FhirConvertOptions } from './fhir-to-records';

/** Default largest resource accepted: 10 MB of JSON. */
export const DEFAULT_MAX_RESOURCE_BYTES = 10 * 1024 * 1024;

/** Options of the stream readers. */
export interface FhirStreamOptions {
  /** a resource (bundle entry or NDJSON line) larger than this is reported as an error, not returned; default 10 MB */
  maxResourceBytes?: number;
}

/** One resource read from a stream. */
export interface FhirStreamResource {
  kind: 'resource';
  resource: Record<string, unknown>;
  /** the resource's JSON (the NDJSON line exactly as received; JSON.stringify of the parsed entry for a Bundle) */
  raw: string;
  /** Bundle.entry.fullUrl */
  fullUrl?: string;
  /** 0-based entry index (Bundle) or 0-based count of non-blank lines (NDJSON) */
  index: number;
  /** 1-based line number (NDJSON) */
  line?: number;
}

/** A bad entry or line, reported instead of thrown. */
export interface FhirStreamError {
  kind: 'error';
  message: string;
  index?: number;
  line?: number;
  /** byte offset of the line (NDJSON) or bytes read so far (Bundle) */
  offset?: number;
  /** true when nothing after this could be read (JSON syntax error in a Bundle, read failure) */
  fatal?: boolean;
}

export type FhirStreamItem = FhirStreamResource | FhirStreamError;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Byte values the scanner looks at. */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const ENTRY = Buffer.from('entry');

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** One element of the top-level entry array, as found by the scanner. */
type ScanItem =
  | { kind: 'element'; text: string; index: number; offset: number }
  | { kind: 'oversized'; length: number; index: number; offset: number }
  | { kind: 'fatal'; message: string; index: number; offset: number };

/**
 * A byte-level scanner over a Bundle's JSON that finds each element of the top-level "entry" array without
 * tokenising the rest: it tracks only string/escape state and bracket nesting (a stack, so a mismatched bracket is a
 * syntax error), and holds the bytes of the current element only (an element longer than `max` is counted, not
 * held). Everything outside the entry array (the Bundle's own fields, small) is kept and JSON.parsed at the end, so a
 * syntax error there is reported too. Structural bytes are ASCII, so multi-byte UTF-8 split across chunks needs no
 * care: bytes are collected as they are and decoded once per element.
 */
class BundleScanner {
  /** absolute offset of the current chunk's first byte */
  private base = 0;
  private readonly stack: number[] = [];
  private inString = false;
  private escape = false;
  /** a string at depth 1 (a key of the Bundle): how many of its bytes match "entry" so far, -1 = not "entry" */
  private keyMatch = -1;
  /** 0: nothing; 1: the key "entry" was read; 2: and its colon */
  private keyState = 0;
  private topSeen = false;
  private topClosed = false;
  /** depth inside the entry array (2), or -1 when not in it */
  private entryDepth = -1;
  /** inside the entry array: 0 = a value or ']' may come, 1 = ',' or ']' must come, 2 = a value must come */
  private expect = 0;
  private index = 0;
  // current element
  private capturing = false;
  private scalar = false;
  private elStart = 0;
  private parts: Buffer[] = [];
  private partsLen = 0;
  private overflow = false;
  // the Bundle outside the entry array
  private shell: Buffer[] = [];
  private shellLen = 0;
  private inShell = true;
  private failed = false;

  constructor(private readonly max: number) {}

  private fatal(message: string, at: number): ScanItem {
    this.failed = true;
    return { kind: 'fatal', message: `malformed JSON: ${message}`, index: this.index, offset: at };
  }

  private keep(piece: Buffer): void {
    if (this.overflow) return;
    if (this.partsLen + piece.length > this.max) {
      this.overflow = true;
      this.parts = [];
      this.partsLen = 0;
      return;
    }
    this.parts.push(piece);
    this.partsLen += piece.length;
  }

  private keepShell(piece: Buffer): void {
    if (this.shellLen > this.max) return; // too large to check; the entries are what matters
    this.shell.push(piece);
    this.shellLen += piece.length;
  }

  private finishElement(buf: Buffer, capStart: number, end: number): ScanItem {
    const length = this.base + end - this.elStart;
    if (length > this.max || this.overflow) {
      this.overflow = false;
      this.parts = [];
      this.partsLen = 0;
      this.capturing = false;
      return { kind: 'oversized', length, index: this.index++, offset: this.elStart };
    }
    const piece = buf.subarray(capStart, end);
    const whole =
      this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece], this.partsLen + piece.length);
    this.parts = [];
    this.partsLen = 0;
    this.capturing = false;
    return { kind: 'element', text: whole.toString('utf8'), index: this.index++, offset: this.elStart };
  }

  /** Scans one chunk, yielding each element as soon as its last byte is seen. */
  *feed(buf: Buffer): Generator<ScanItem> {
    if (this.failed) return;
    const n = buf.length;
    if (n === 0) return;
    let i = 0;
    if (this.base === 0 && n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3; // byte-order mark
    let capStart = 0;
    let shellStart = 0;
    let nextBs = -1; // position of the next backslash at or after i (n = none in this chunk)
    if (this.escape) {
      this.escape = false; // the byte after a backslash that ended the previous chunk
      i = 1;
    }
    while (i < n) {
      if (this.inString) {
        if (nextBs < i) {
          nextBs = buf.indexOf(BACKSLASH, i);
          if (nextBs === -1) nextBs = n;
        }
        let q = buf.indexOf(QUOTE, i);
        if (q === -1) q = n;
        if (nextBs < q) {
          if (this.keyMatch >= 0) this.keyMatch = -1; // an escape in a key: not the plain "entry"
          if (nextBs + 1 < n) {
            i = nextBs + 2;
          } else {
            this.escape = true;
            i = n;
          }
          continue;
        }
        if (this.keyMatch >= 0) this.matchKey(buf, i, q);
        if (q === n) {
          i = n;
          break;
        }
        this.inString = false;
        i = q + 1;
        if (this.stack.length === 1) this.keyState = this.keyMatch === ENTRY.length ? 1 : 0;
        this.keyMatch = -1;
        continue;
      }
      const c = buf[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      const depth = this.stack.length;
      if (depth === this.entryDepth && !this.capturing) {
        // between elements of the entry array
        if (c === COMMA) {
          if (this.expect !== 1) {
            yield this.fatal(`unexpected ',' in entry`, this.base + i);
            return;
          }
          this.expect = 2;
          i++;
          continue;
        }
        if (c === CLOSE_ARR) {
          if (this.expect === 2) {
            yield this.fatal(`unexpected ']' after ','`, this.base + i);
            return;
          }
          // fall through to the closing bracket below
        } else {
          if (this.expect === 1) {
            yield this.fatal(`',' or ']' expected in entry`, this.base + i);
            return;
          }
          this.capturing = true;
          this.scalar = c !== OPEN_OBJ && c !== OPEN_ARR;
          this.elStart = this.base + i;
          capStart = i;
          this.expect = 1;
        }
      } else if (
        this.capturing &&
        this.scalar &&
        depth === this.entryDepth &&
        (c === COMMA || c === CLOSE_ARR)
      ) {
        yield this.finishElement(buf, capStart, i);
        continue; // the ',' or ']' is read again as a separator
      }
      if (c === QUOTE) {
        if (depth === 0) {
          yield this.fatal(`unexpected '"' outside the Bundle`, this.base + i);
          return;
        }
        this.inString = true;
        if (depth === 1) this.keyMatch = 0;
        i++;
        continue;
      }
      if (c === OPEN_OBJ || c === OPEN_ARR) {
        if (depth === 0) {
          if (this.topSeen || c !== OPEN_OBJ) {
            yield this.fatal('a Bundle is one JSON object', this.base + i);
            return;
          }
          this.topSeen = true;
        } else if (depth === 1) {
          if (c === OPEN_ARR && this.keyState === 2 && this.entryDepth === -1) {
            this.entryDepth = 2;
            this.expect = 0;
            if (this.inShell) this.keepShell(buf.subarray(shellStart, i + 1));
            this.inShell = false;
          }
          this.keyState = 0;
        }
        this.stack.push(c === OPEN_OBJ ? CLOSE_OBJ : CLOSE_ARR);
        i++;
        continue;
      }
      if (c === CLOSE_OBJ || c === CLOSE_ARR) {
        const want = this.stack.pop();
        if (want !== c) {
          yield this.fatal(`unexpected '${String.fromCharCode(c)}'`, this.base + i);
          return;
        }
        const d = this.stack.length;
        if (d === 1) this.keyState = 0;
        if (this.capturing && d === this.entryDepth) {
          i++;
          yield this.finishElement(buf, capStart, i);
          continue;
        }
        if (d === this.entryDepth - 1) {
          this.entryDepth = -1;
          this.inShell = true;
          shellStart = i;
        }
        if (d === 0) this.topClosed = true;
        i++;
        continue;
      }
      if (depth === 0) {
        yield this.fatal(`unexpected '${String.fromCharCode(c)}' outside the Bundle`, this.base + i);
        return;
      }
      if (depth === 1) this.keyState = c === COLON && this.keyState === 1 ? 2 : 0;
      i++;
    }
    if (this.capturing) this.keep(buf.subarray(capStart, n));
    if (this.inShell) this.keepShell(buf.subarray(shellStart, n));
    this.base += n;
  }

  /** Compares a key's bytes [from, to) with "entry", continuing from the bytes already matched. */
  private matchKey(buf: Buffer, from: number, to: number): void {
    let m = this.keyMatch;
    for (let k = from; k < to; k++) {
      if (m >= ENTRY.length || buf[k] !== ENTRY[m]) {
        this.keyMatch = -1;
        return;
      }
      m++;
    }
    this.keyMatch = m;
  }

  /** After the last chunk: an unfinished Bundle or a malformed one outside the entries is a fatal item. */
  end(): ScanItem | undefined {
    if (this.failed) return undefined;
    if (!this.topSeen) return this.fatal('no Bundle (empty input)', this.base);
    if (!this.topClosed || this.stack.length > 0 || this.inString)
      return this.fatal('unexpected end of data', this.base);
    if (this.shellLen <= this.max) {
      try {
        JSON.parse(Buffer.concat(this.shell).toString('utf8'));
      } catch (e) {
        return this.fatal(e instanceof Error ? e.message : String(e), this.base);
      }
    }
    return undefined;
  }
}

/**
 * Reads a FHIR Bundle from a byte stream and yields each entry's resource (with its fullUrl) in order.
 * An entry that is not JSON (its brackets balance but JSON.parse refuses it), not an object, without a resource, or
 * larger than maxResourceBytes (counted on the entry's bytes while scanning, so it is never held whole; and on the
 * resource's JSON) is an error item with the entry's byte offset; a structural syntax error is a fatal error item
 * after the entries before it.
 */
export async function* readBundleStream(
  readable: Readable,
  options: FhirStreamOptions = {},
): AsyncGenerator<FhirStreamItem> {
  const max = options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES;
  const scanner = new BundleScanner(max);
  const toItem = (s: ScanItem): FhirStreamItem => {
    if (s.kind === 'fatal')
      return { kind: 'error', index: s.index, offset: s.offset, fatal: true, message: s.message };
    if (s.kind === 'oversized')
      return {
        kind: 'error',
        index: s.index,
        offset: s.offset,
        message: `resource larger than ${max} bytes (${s.length})`,
      };
    let entry: unknown;
    try {
      entry = JSON.parse(s.text);
    } catch (e) {
      return {
        kind: 'error',
        index: s.index,
        offset: s.offset,
        message: `malformed JSON: ${errorMessage(e)}`,
      };
    }
    const resource = isObject(entry) ? entry.resource : undefined;
    if (!isObject(resource)) {
      return {
        kind: 'error',
        index: s.index,
        offset: s.offset,
        message: isObject(entry) ? 'entry has no resource' : 'entry is not an object',
      };
    }
    const raw = JSON.stringify(resource);
    if (raw.length > max) {
      return {
        kind: 'error',
        index: s.index,
        offset: s.offset,
        message: `resource larger than ${max} bytes (${raw.length})`,
      };
    }
    const out: FhirStreamResource = { kind: 'resource', resource, raw, index: s.index };
    if (isObject(entry) && typeof entry.fullUrl === 'string') out.fullUrl = entry.fullUrl;
    return out;
  };
  let bytes = 0;
  try {
    for await (const chunk of readable as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      bytes += buf.length;
      for (const s of scanner.feed(buf)) {
        yield toItem(s);
        if (s.kind === 'fatal') return;
      }
    }
  } catch (e) {
    yield { kind: 'error', offset: bytes, fatal: true, message: `read failed: ${errorMessage(e)}` };
    return;
  }
  const last = scanner.end();
  if (last) yield toItem(last);
}

/**
 * Reads FHIR Bulk Data NDJSON (one resource per line; LF or CRLF; a leading byte-order mark and blank lines are
 * allowed) and yields each resource with its line number. A line that is not JSON, not a resource, or longer than
 * maxResourceBytes is an error item (the over-long line is discarded as it streams, never held whole).
 */
export async function* readNdjsonStream(
  readable: Readable,
  options: FhirStreamOptions = {},
): AsyncGenerator<FhirStreamItem> {
  const max = options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES;
  let parts: Buffer[] = [];
  let partsLen = 0;
  let overflow = false;
  let line = 1;
  let lineOffset = 0; // byte offset where the current line starts
  let consumed = 0; // bytes before the current chunk
  let index = 0;

  const finishLine = (): FhirStreamItem | undefined => {
    const lineNo = line;
    const offset = lineOffset;
    if (overflow) {
      overflow = false;
      return {
        kind: 'error',
        line: lineNo,
        offset,
        index: index++,
        message: `resource larger than ${max} bytes`,
      };
    }
    let text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsLen)).toString('utf8');
    parts = [];
    partsLen = 0;
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (!text.trim()) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return {
        kind: 'error',
        line: lineNo,
        offset,
        index: index++,
        message: `malformed JSON: ${errorMessage(e)}`,
      };
    }
    if (!isObject(value) || typeof value.resourceType !== 'string') {
      return { kind: 'error', line: lineNo, offset, index: index++, message: 'line is not a FHIR resource' };
    }
    return { kind: 'resource', resource: value, raw: text, index: index++, line: lineNo };
  };

  const append = (piece: Buffer): void => {
    if (overflow || piece.length === 0) return;
    if (partsLen + piece.length > max) {
      overflow = true;
      parts = [];
      partsLen = 0;
      return;
    }
    parts.push(piece);
    partsLen += piece.length;
  };

  try {
    for await (const chunk of readable as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        append(buf.subarray(start, nl));
        const item = finishLine();
        if (item) yield item;
        line++;
        lineOffset = consumed + nl + 1;
        start = nl + 1;
      }
      append(buf.subarray(start));
      consumed += buf.length;
    }
  } catch (e) {
    yield {
      kind: 'error',
      line,
      offset: lineOffset,
      fatal: true,
      message: `read failed: ${errorMessage(e)}`,
    };
    return;
  }
  if (partsLen > 0 || overflow) {
    const item = finishLine();
    if (item) yield item;
  }
}

/** Counts of a streamed conversion: the batch summary plus unreadable entries. */
export interface FhirStreamSummary extends FhirBatchSummary {
  /** entries or lines that could not be read as a resource (each reported in a chunk's errors) */
  errors: number;
}

/** A slice of a streamed conversion: what was produced since the previous chunk, and the running summary. */
export interface FhirStreamChunk extends FhirBatchOutput {
  errors: FhirStreamError[];
  summary: FhirStreamSummary;
  /** true on the last chunk (its summary is final) */
  done: boolean;
}

/**
 * Converts a stream of resources (from readBundleStream or readNdjsonStream) into patients and records, yielding
 * them in chunks of about `chunkSize` outputs so a caller can store them as they come. Every input is accounted for:
 * in the final summary, resources = patients + converted + skippedTotal, plus `errors` for unreadable entries.
 */
export async function* convertFhirStream(
  items: AsyncIterable<FhirStreamItem>,
  options: FhirConvertOptions = {},
  chunkSize = 500,
): AsyncGenerator<FhirStreamChunk> {
  const batch = new FhirBatchConverter(options);
  let errorCount = 0;
  let chunk: Omit<FhirStreamChunk, 'summary' | 'done'> = {
    patients: [],
    records: [],
    skipped: [],
    errors: [],
  };
  const size = (): number =>
    chunk.patients.length + chunk.records.length + chunk.skipped.length + chunk.errors.length;
  const take = (o: FhirBatchOutput): void => {
    for (const p of o.patients) chunk.patients.push(p);
    for (const r of o.records) chunk.records.push(r);
    for (const s of o.skipped) chunk.skipped.push(s);
  };
  const emit = (done: boolean): FhirStreamChunk => {
    const out = { ...chunk, summary: { ...batch.summary, errors: errorCount }, done };
    chunk = { patients: [], records: [], skipped: [], errors: [] };
    return out;
  };
  for await (const item of items) {
    if (item.kind === 'error') {
      errorCount++;
      chunk.errors.push(item);
    } else {
      take(
        batch.add(
          item.resource,
          item.fullUrl === undefined ? { raw: item.raw } : { raw: item.raw, fullUrl: item.fullUrl },
        ),
      );
    }
    if (size() >= chunkSize) yield emit(false);
  }
  take(batch.finish());
  yield emit(true);
}
