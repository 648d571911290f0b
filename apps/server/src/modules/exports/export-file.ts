/**
 * Writes one generated file to a temporary file on disk, hashing it on the way: what the export job does with a
 * kind's `generate`, in the job's process or in a child process of its own (export-process.ts).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AnyExportKind, GenerateInput, ReportProgress } from './exports.types';

export async function writeExportFile(
  def: AnyExportKind,
  input: GenerateInput<unknown>,
  file: string,
  report: ReportProgress,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
  });
  const written = pipeline(out, createWriteStream(file, { mode: 0o600 }));
  try {
    await def.generate(input, out, report);
    out.end();
  } catch (err) {
    out.destroy();
    throw err;
  } finally {
    await written.catch(() => undefined);
  }
  await written;
  return { sha256: hash.digest('hex'), size };
}
