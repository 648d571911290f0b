/**
 * Worker thread that reads the first worksheet of an uploaded .xlsx (kept warm by `readXlsxRows` in excel.ts),
 * so that parsing never blocks the API's event loop. The archive was checked on its declared sizes before this
 * worker started; here the declarations are verified by inflating (counting, discarding), then rows are
 * streamed with exceljs's WorkbookReader and reading stops at the first non-empty data row over the limit.
 */
import { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import ExcelJS from 'exceljs';
import { ArchiveError, orderForStreaming, readCentralDirectory, verifyInflation, type ZipEntry } from './xlsx-archive';

export interface XlsxReadRequest {
  buffer: Uint8Array;
  entries: ZipEntry[];
  maxRows: number;
  maxColumns: number;
}

export interface XlsxRow {
  /** the row number as Excel shows it */
  rowNo: number;
  /** cell values by column (index 0 = column A); empty cells are null */
  cells: ExcelJS.CellValue[];
}

export type XlsxReadResult =
  | { ok: true; rows: XlsxRow[] }
  | { ok: false; problem: 'notXlsx' | 'tooLarge' | 'tooManyRows'; message: string };

async function read(req: XlsxReadRequest): Promise<XlsxReadResult> {
  const buf = Buffer.from(req.buffer.buffer, req.buffer.byteOffset, req.buffer.byteLength);
  try {
    await verifyInflation(buf, req.entries);
  } catch (err) {
    if (err instanceof ArchiveError) return { ok: false, problem: err.problem === 'tooLarge' ? 'tooLarge' : 'notXlsx', message: err.message };
    throw err;
  }
  const { directoryOffset } = readCentralDirectory(buf);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([orderForStreaming(buf, req.entries, directoryOffset)]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'cache',
    entries: 'ignore',
  });
  // without a shared-strings part the reader would still wait for one, parking the sheet in a temporary file
  if (!req.entries.some((e) => e.name === 'xl/sharedStrings.xml')) (reader as unknown as { sharedStrings: string[] }).sharedStrings = [];
  const rows: XlsxRow[] = [];
  let dataRows = 0;
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = row.values as ExcelJS.CellValue[];
        const cells: ExcelJS.CellValue[] = [];
        let any = false;
        for (let c = 1; c <= Math.min(req.maxColumns, values.length - 1); c++) {
          const v = values[c] ?? null;
          cells.push(v);
          if (v !== null && v !== '') any = true;
        }
        if (!any) continue;
        if (row.number > 1) dataRows += 1;
        // the limit holds on data rows with any content; reading stops at the first one beyond it
        if (dataRows > req.maxRows) return { ok: false, problem: 'tooManyRows', message: `more than ${req.maxRows} rows` };
        rows.push({ rowNo: row.number, cells });
      }
      break; // the first worksheet only
    }
  } catch (err) {
    return { ok: false, problem: 'notXlsx', message: err instanceof Error ? err.message : String(err) };
  }
  return { ok: true, rows };
}

// one request at a time (the parent sends the next only after the answer); the worker stays warm between them
parentPort!.on('message', (req: XlsxReadRequest) => {
  read(req).then(
    (result) => parentPort!.postMessage(result),
    (err: unknown) => parentPort!.postMessage({ ok: false, problem: 'notXlsx', message: err instanceof Error ? err.message : String(err) }),
  );
});
