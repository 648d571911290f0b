/**
 * Backpressure for exceljs's streaming workbook writer (exceljs 4.4).
 * Used by every streamed Excel export (subjects, users, study data; reports write small sheets).
 *
 * A worksheet's rows go into exceljs's own `StreamBuf`, which is not a Node readable, so archiver wraps it in a
 * `PassThrough` (`archiver-utils.normalizeInputSource`). `StreamBuf` writes into that PassThrough without looking at
 * the answer of `write()`, and archiver reads a sheet only when the zip gets to it: the rows wait in memory until
 * the deflate catches up, so memory grows with the study. The PassThrough still sets `needDrain` and emits
 * `drain`, so a writer that waits for it between pages keeps the buffers at about one page of rows.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** The parts of exceljs's internals used here (not in its type definitions). */
interface StreamedSheet {
  stream?: { pipes?: Pipe[] };
}
/** archiver-utils' PassThrough comes from readable-stream 2, which has no `writableNeedDrain` getter. */
type Pipe = Writable & { _writableState?: { needDrain?: boolean } };

function needsDrain(pipe: Pipe): boolean {
  return !pipe.destroyed && (pipe.writableNeedDrain ?? pipe._writableState?.needDrain ?? false);
}

/** Resolves when the zip has taken the rows written so far (or at once when nothing is waiting). */
export async function sheetDrained(worksheet: unknown): Promise<void> {
  const pipes = (worksheet as StreamedSheet).stream?.pipes ?? [];
  for (const pipe of pipes) {
    while (needsDrain(pipe)) await once(pipe, 'drain');
  }
}
