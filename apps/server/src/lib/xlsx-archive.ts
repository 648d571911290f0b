/**
 * The zip container of an uploaded .xlsx, judged before any XML parser sees it (security issue item 6).
 *
 * An .xlsx is a zip: a 4.5 MB upload may unpack to gigabytes (a "zip bomb"). The central directory at the end
 * of the file declares every entry with its compressed and uncompressed size, so the sizes, their ratio and the
 * number of entries are checked there, in microseconds, without inflating anything. The declared sizes are then
 * held to account: `verifyInflation` inflates each entry while counting and stops at the first byte beyond its
 * declaration, and `checkArchive` requires the entries to tile the file (no bytes outside the directory that a
 * streaming unzipper, which reads local headers in order, could still find).
 */
import { createInflateRaw } from 'node:zlib';

export interface ArchiveLimits {
  /** entries in the archive (an .xlsx written by Excel or exceljs has 10–30) */
  maxEntries: number;
  /** declared uncompressed size of one entry */
  maxEntryBytes: number;
  /** declared uncompressed size of all entries together */
  maxTotalBytes: number;
  /** uncompressed / compressed, for entries larger than ratioAboveBytes */
  maxRatio: number;
  ratioAboveBytes: number;
}

/**
 * Limits for the imports (≤ 1,000 rows, ≤ 5 MB upload). A 1,000-row sheet is about 0.2 MB of XML, but a file with
 * too many rows should hear so (the row limit), not "too large": a real 100,000-row sheet is 22 MB of XML in
 * 2.5 MB (ratio 9). Real sheets deflate 5–20×, zip bombs about 1,000× (the deflate maximum): the ratio catches
 * bombs, the sizes bound what the worker (its own heap limit, streaming rows) may ever be handed.
 */
export const XLSX_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 1000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 100 * 1024 * 1024,
  maxRatio: 100,
  ratioAboveBytes: 1024 * 1024,
};

export type ArchiveProblem = 'notZip' | 'tooLarge';

export class ArchiveError extends Error {
  constructor(
    readonly problem: ArchiveProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  flags: number;
  /** 0 stored, 8 deflated (the only methods an .xlsx uses) */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  /** where the entry's record (header, data, descriptor) ends; set by checkArchive */
  recordEnd?: number;
}

const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;
const DESCRIPTOR_SIG = 0x08074b50;

const notZip = (why: string) => new ArchiveError('notZip', why);

/** The central directory's entries, read from the end-of-central-directory record. Nothing is inflated. */
export function readCentralDirectory(buf: Buffer): { entries: ZipEntry[]; directoryOffset: number } {
  if (buf.length < 22) throw notZip('too short for a zip');
  // the EOCD record is the last 22 bytes plus a comment of up to 65,535 bytes
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD_SIG && i + 22 + buf.readUInt16LE(i + 20) === buf.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw notZip('no end-of-central-directory record');
  const disk = buf.readUInt16LE(eocd + 4);
  const count = buf.readUInt16LE(eocd + 10);
  const size = buf.readUInt32LE(eocd + 12);
  const offset = buf.readUInt32LE(eocd + 16);
  // multi-disk and ZIP64 archives have no place in a ≤ 5 MB workbook
  if (disk !== 0 || count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw notZip('ZIP64 or multi-disk archive');
  if (offset + size > eocd) throw notZip('central directory outside the file');
  const entries: ZipEntry[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > offset + size || buf.readUInt32LE(p) !== CDH_SIG) throw notZip('broken central directory');
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const entry: ZipEntry = {
      flags: buf.readUInt16LE(p + 8),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      uncompressedSize: buf.readUInt32LE(p + 24),
      localHeaderOffset: buf.readUInt32LE(p + 42),
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
    };
    if (entry.compressedSize === 0xffffffff || entry.uncompressedSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff) {
      throw notZip('ZIP64 entry');
    }
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  if (p !== offset + size) throw notZip('central directory size does not match its entries');
  return { entries, directoryOffset: offset };
}

/** Where an entry's compressed data starts (after its local header). */
function dataStart(buf: Buffer, e: ZipEntry): number {
  const p = e.localHeaderOffset;
  if (p + 30 > buf.length || buf.readUInt32LE(p) !== LFH_SIG) throw notZip(`no local header for ${e.name}`);
  return p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
}

/**
 * Checks the declared sizes against the limits (entry count, each entry, the total, the ratio) and that the
 * entries tile the file from its start to the central directory. Throws ArchiveError; inflates nothing.
 */
export function checkArchive(buf: Buffer, limits: ArchiveLimits = XLSX_ARCHIVE_LIMITS): ZipEntry[] {
  const { entries, directoryOffset } = readCentralDirectory(buf);
  if (entries.length > limits.maxEntries) throw new ArchiveError('tooLarge', `${entries.length} entries`);
  let total = 0;
  for (const e of entries) {
    if (e.method !== 0 && e.method !== 8) throw notZip(`compression method ${e.method}`);
    if (e.flags & 1) throw notZip('encrypted entry');
    if (e.method === 0 && e.compressedSize !== e.uncompressedSize) throw notZip(`stored entry ${e.name} with two sizes`);
    if (e.uncompressedSize > limits.maxEntryBytes) throw new ArchiveError('tooLarge', `${e.name} declares ${e.uncompressedSize} bytes`);
    total += e.uncompressedSize;
    if (e.uncompressedSize > limits.ratioAboveBytes && e.uncompressedSize > limits.maxRatio * Math.max(1, e.compressedSize)) {
      throw new ArchiveError('tooLarge', `${e.name} inflates ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))}×`);
    }
  }
  if (total > limits.maxTotalBytes) throw new ArchiveError('tooLarge', `entries declare ${total} bytes`);
  // the entries, in file order, must follow one another with nothing between (bar a data descriptor)
  const ordered = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  let expected = 0;
  for (const e of ordered) {
    if (e.localHeaderOffset !== expected) throw notZip(`bytes outside the directory before ${e.name}`);
    const end = dataStart(buf, e) + e.compressedSize;
    if (end > directoryOffset) throw notZip(`${e.name} runs into the central directory`);
    expected = end;
    if (e.flags & 8) {
      // data descriptor: optional signature, crc, sizes (12 or 16 bytes)
      expected += end + 4 <= buf.length && buf.readUInt32LE(end) === DESCRIPTOR_SIG ? 16 : 12;
    }
    e.recordEnd = expected;
  }
  if (expected !== directoryOffset) throw notZip('bytes outside the directory before the central directory');
  return entries;
}

/**
 * Inflates every entry while counting, discarding the output, and throws as soon as one produces more than it
 * declared: afterwards the declared sizes (already within the limits) bound what a parser can be made to read.
 */
export async function verifyInflation(buf: Buffer, entries: ZipEntry[]): Promise<void> {
  for (const e of entries) {
    const start = dataStart(buf, e);
    const data = buf.subarray(start, start + e.compressedSize);
    if (e.method === 0) continue;
    await new Promise<void>((resolve, reject) => {
      let produced = 0;
      const inflate = createInflateRaw();
      inflate.on('data', (chunk: Buffer) => {
        produced += chunk.length;
        if (produced > e.uncompressedSize) {
          inflate.destroy();
          reject(new ArchiveError('tooLarge', `${e.name} inflates beyond its declared ${e.uncompressedSize} bytes`));
        }
      });
      inflate.on('error', () => reject(notZip(`${e.name} is not valid deflate data`)));
      inflate.on('end', () => (produced === e.uncompressedSize ? resolve() : reject(notZip(`${e.name} inflates to another size than declared`))));
      inflate.end(data);
    });
  }
}

/** Parts a streaming reader needs before the sheets (it parks a sheet that comes earlier in a temporary file). */
const FIRST = ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/sharedStrings.xml', 'xl/styles.xml'];

/**
 * The archive's local records re-ordered for a streaming reader: workbook, relations, shared strings and styles
 * first, then the rest in file order, then the central directory (as it was; a streaming reader reads records in
 * order and never follows its offsets). Excel writes the sheets before the shared strings. Needs checkArchive's
 * entries (with recordEnd).
 */
export function orderForStreaming(buf: Buffer, entries: ZipEntry[], directoryOffset: number): Buffer {
  const rank = (e: ZipEntry) => {
    const i = FIRST.indexOf(e.name);
    return i < 0 ? FIRST.length : i;
  };
  const ordered = [...entries].sort((a, b) => rank(a) - rank(b) || a.localHeaderOffset - b.localHeaderOffset);
  return Buffer.concat([...ordered.map((e) => buf.subarray(e.localHeaderOffset, e.recordEnd)), buf.subarray(directoryOffset)]);
}
