import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sheetDrained } from './xlsx-backpressure';

/** The bytes buffered between exceljs's sheet stream and the zip (the PassThrough archiver wraps it in). */
function waiting(ws: unknown): number {
  const pipes = (ws as { stream: { pipes: { _writableState: { length: number } }[] } }).stream.pipes;
  return pipes.reduce((a, p) => a + p._writableState.length, 0);
}

describe('exceljs streaming writer with backpressure', () => {
  it('keeps at most a page of rows waiting for the zip, and the workbook reads back whole', async () => {
    const chunks: Buffer[] = [];
    // a slow target: every chunk is taken a turn later, so the zip (and the rows before it) would pile up
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        chunks.push(chunk);
        setImmediate(cb);
      },
    });
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
    let most = 0;
    const rows = 4000;
    for (const name of ['A', 'B']) {
      const ws = wb.addWorksheet(name);
      ws.addRow(['no', ...Array.from({ length: 30 }, (_, i) => `IT${i}`)]).commit();
      for (let r = 1; r <= rows; r++) {
        ws.addRow([r, ...Array.from({ length: 30 }, (_, i) => `${name} text ${r} ${i}`)]).commit();
        if (r % 200 === 0) {
          await sheetDrained(ws);
          most = Math.max(most, waiting(ws));
        }
      }
      ws.commit();
    }
    await wb.commit();
    // 200 rows of ~30 cells are ≈ 200 KB of sheet XML: without waiting, all 4,000 rows (≈ 4 MB) would be waiting
    expect(most).toBeLessThan(256 * 1024);

    const back = new ExcelJS.Workbook();
    await back.xlsx.load(Buffer.concat(chunks) as unknown as Parameters<typeof back.xlsx.load>[0]);
    expect(back.worksheets.map((w) => w.name)).toEqual(['A', 'B']);
    const b = back.getWorksheet('B')!;
    expect(b.rowCount).toBe(rows + 1);
    expect(b.getRow(rows + 1).getCell(2).value).toBe(`B text ${rows} 0`);
  });
});
