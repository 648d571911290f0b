/**
 * POST /tool/ocrTools (spec §7 Common): one image read by the OCR engine and run through automatic de-identification
 * with the project's desensitization keywords and policy — what the job would box on it — without storing anything.
 * The desensitization configuration screen uses it to try the settings on a sample page. The text read is answered to
 * the caller who sent the image (it is theirs); nothing is kept, nothing audited.
 */
import type { Language, OcrToolResult } from '@esource/shared';
import { isOcrError, ocrImage } from '@esource/ocr';
import type { DeidOptions } from '@esource/deid';
import { AppError } from '../../lib/errors';
import { fieldError } from '../../lib/validate';
import { ocrPiece, pageBoxes } from './deid-boxes';
import type { CheckedFile } from './upload-check';

export async function ocrTool(lang: Language, files: CheckedFile[], opts: DeidOptions): Promise<OcrToolResult> {
  if (files.length === 0) throw new AppError('DOCUMENT_NO_FILE');
  if (files.length > 1) throw fieldError(lang, 'files', 'documents.ocrTool.oneImage', { count: files.length });
  const f = files[0]!;
  if (f.kind !== 'image') throw fieldError(lang, 'files', 'documents.ocrTool.imageOnly', { name: f.name });
  try {
    const r = await ocrImage(f.bytes);
    const limits = { width: r.width, height: r.height };
    const boxes = pageBoxes(0, r.regions.map((g) => ocrPiece(g, limits)), opts);
    return { width: r.width, height: r.height, lines: r.regions.map((g) => ({ page: 0, text: g.text, ...g.box })), boxes };
  } catch (err) {
    if (isOcrError(err, 'OCR_BUSY')) throw new AppError('OCR_BUSY');
    if (isOcrError(err, 'OCR_BAD_IMAGE') || isOcrError(err, 'OCR_TOO_MANY_PIXELS')) throw fieldError(lang, 'files', 'documents.ocrTool.badImage', { name: f.name });
    throw err;
  }
}
