/**
 * The feedback export (GET /feedback/export): the administrators' filtered list as a streamed .xlsx, headers and
 * values in the request's language, times in the viewer's time zone, every text cell neutralised (a feedback text
 * starting with '=' is text, never a formula). The answers and notes of each feedback go in one cell, oldest first.
 */
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FeedbackDetail, Language } from '@esource/shared';
import { formatTime, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { sheetDrained } from '../../lib/xlsx-backpressure';

const COLUMNS = [
  ['id', 8],
  ['createTime', 20],
  ['userName', 18],
  ['userAccount', 16],
  ['category', 12],
  ['status', 10],
  ['content', 60],
  ['pagePath', 30],
  ['env', 6],
  ['screenshot', 10],
  ['replies', 60],
  ['updateTime', 20],
  ['updatedBy', 16],
] as const;

export function streamFeedbackExport(
  lang: Language,
  timeZone: string,
  batches: AsyncIterable<FeedbackDetail[]>,
): Readable {
  const t = translator(lang);
  const out = new PassThrough();
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const ws = wb.addWorksheet(t('feedback.export.sheet'), { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = COLUMNS.map(([key, width]) => ({
    header: t(`feedback.export.${key}`),
    key,
    width,
    style: { alignment: { vertical: 'top', wrapText: key === 'content' || key === 'replies' } },
  }));
  ws.getRow(1).font = { bold: true };
  const time = (iso: string) => formatTime(new Date(iso), timeZone);
  const write = async () => {
    for await (const batch of batches) {
      for (const f of batch) {
        const replies = f.replies
          .map((r) =>
            `[${time(r.createTime)} ${r.userName ?? ''} · ${t(`feedback.acted.${r.kind}`)}] ${r.content ?? ''}`.trim(),
          )
          .join('\n');
        ws.addRow(
          safeRow({
            id: f.id,
            createTime: time(f.createTime),
            userName: f.userName,
            userAccount: f.userAccount,
            category: t(`feedback.category.${f.category}`),
            status: t(`feedback.status.${f.status}`),
            content: f.content,
            pagePath: f.pagePath ?? '',
            env: f.env,
            screenshot: f.hasScreenshot ? t('feedback.export.yes') : t('feedback.export.no'),
            replies,
            updateTime: f.replyCount > 0 ? time(f.updateTime) : '',
            updatedBy: f.replyCount > 0 ? (f.updatedByName ?? '') : '',
          }),
        ).commit();
      }
      await sheetDrained(ws);
    }
    ws.commit();
    await wb.commit();
  };
  write().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
