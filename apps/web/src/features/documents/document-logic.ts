/**
 * The pure rules of the source-document screens: the upload checks the browser can make before sending (the server
 * checks again, by content), the box geometry of the review screen, and which actions a file's status allows.
 */
import { LIMITS, SOURCE_FILE_EDITABLE, SOURCE_FILE_REDEID_FROM, SOURCE_FILE_STATUS, SOURCE_FILE_TRANSITIONS, type Permission } from '@esource/shared';

const S = SOURCE_FILE_STATUS;

export const STATUS_COLOR: Record<number, string> = {
  [S.default]: 'default',
  [S.waitingImport]: 'default',
  [S.submitFailed]: 'red',
  [S.auditFailed]: 'volcano',
  [S.autoDeidentifying]: 'processing',
  [S.waitingSubmit]: 'gold',
  [S.waitingAudit]: 'blue',
  [S.auditPassed]: 'green',
};

/** A problem with a chosen file (or with the choice as a whole), as a catalogue key and its values. */
export interface UploadProblem {
  key: string;
  values: Record<string, string | number>;
}

export interface PickedFile {
  name: string;
  size: number;
  type: string;
}

const MB = 1024 * 1024;

/** png / jpg / pdf by the name or the browser's type; the server decides by content. */
export function kindOf(f: PickedFile): 'image' | 'pdf' | null {
  const n = f.name.toLowerCase();
  if (f.type === 'application/pdf' || n.endsWith('.pdf')) return 'pdf';
  if (['image/png', 'image/jpeg'].includes(f.type) || /\.(png|jpe?g)$/.test(n)) return 'image';
  return null;
}

/**
 * What the upload dialog refuses before sending (spec §5, §9): PNG/JPG/PDF only, images ≤ 2 MB, PDFs ≤ 50 MB,
 * 20 images per upload, 200 files per subject (with the ones it already has).
 */
export function uploadProblems(files: readonly PickedFile[], existing: number): UploadProblem[] {
  const out: UploadProblem[] = [];
  if (files.length === 0) out.push({ key: 'upload.noFile', values: {} });
  let images = 0;
  for (const f of files) {
    const kind = kindOf(f);
    if (f.size === 0) out.push({ key: 'upload.empty', values: { name: f.name } });
    else if (!kind) out.push({ key: 'upload.badType', values: { name: f.name } });
    else if (kind === 'image' && f.size > LIMITS.imageMaxBytes)
      out.push({ key: 'upload.imageTooLarge', values: { name: f.name, mb: LIMITS.imageMaxBytes / MB } });
    else if (kind === 'pdf' && f.size > LIMITS.pdfMaxBytes)
      out.push({ key: 'upload.pdfTooLarge', values: { name: f.name, mb: LIMITS.pdfMaxBytes / MB } });
    if (kind === 'image') images++;
  }
  if (images > LIMITS.sourceUploadImages)
    out.push({ key: 'upload.tooManyImages', values: { max: LIMITS.sourceUploadImages, count: images } });
  if (existing + files.length > LIMITS.fileCountMax)
    out.push({ key: 'upload.tooManyFiles', values: { max: LIMITS.fileCountMax, existing, count: files.length } });
  return out;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangle between two points, inside the page. */
export function rectBetween(a: { x: number; y: number }, b: { x: number; y: number }, page: { width: number; height: number }): Rect {
  const x0 = clamp(Math.min(a.x, b.x), 0, page.width);
  const y0 = clamp(Math.min(a.y, b.y), 0, page.height);
  const x1 = clamp(Math.max(a.x, b.x), 0, page.width);
  const y1 = clamp(Math.max(a.y, b.y), 0, page.height);
  return { x: Math.round(x0), y: Math.round(y0), width: Math.round(x1 - x0), height: Math.round(y1 - y0) };
}

/** A box moved by (dx, dy), kept whole inside the page. */
export function moveRect(r: Rect, dx: number, dy: number, page: { width: number; height: number }): Rect {
  return {
    ...r,
    x: Math.round(clamp(r.x + dx, 0, Math.max(0, page.width - r.width))),
    y: Math.round(clamp(r.y + dy, 0, Math.max(0, page.height - r.height))),
  };
}

/** A box resized from its bottom-right corner, at least `min` pixels each way, inside the page. */
export function resizeRect(r: Rect, dw: number, dh: number, page: { width: number; height: number }, min = 4): Rect {
  return {
    ...r,
    width: Math.round(clamp(r.width + dw, min, page.width - r.x)),
    height: Math.round(clamp(r.height + dh, min, page.height - r.y)),
  };
}

/** Drawn boxes smaller than this (page pixels) are taken as a click, not a box. */
export const MIN_BOX = 4;

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), Math.max(lo, hi));
}

export type FileAction = 'submit' | 'pass' | 'fail' | 'withdraw' | 'edit' | 'redeid' | 'confirm' | 'discard';

/**
 * The actions a status allows and the caller's permissions permit (the server enforces the same table). Editing the
 * boxes of an ISF document needs the ISF's upload permission instead of the source documents'.
 */
export function allowedActions(status: number, has: (p: Permission) => boolean, isf = false): FileAction[] {
  const out: FileAction[] = [];
  for (const t of SOURCE_FILE_TRANSITIONS) {
    if (t.from !== status || !has(t.permission)) continue;
    if (!out.includes(t.action)) out.push(t.action);
  }
  const upload = has(isf ? 'isf:file:upload' : 'source:file:upload');
  if (SOURCE_FILE_EDITABLE.includes(status) && upload) out.push('edit');
  if (SOURCE_FILE_REDEID_FROM.includes(status) && upload) out.push('redeid');
  // an upload waiting for confirmation (the project's fileConfirmConfig): confirm it, or discard it with a reason
  if (status === S.waitingImport && has('source:file:submit')) out.push('confirm', 'discard');
  return out;
}

/**
 * The review route of a file: images and PDFs have their own screen (spec §2 uploadTuomin / pdfTuomin; an ISF
 * document's under /project/researchFile: imageTuomin / pdfTuomin).
 */
export function reviewPath(f: { id: number; kind: 'image' | 'pdf'; isfKindId?: number | null }, from?: 'message'): string {
  if (f.isfKindId) return `/project/researchFile/${f.kind === 'pdf' ? 'pdfTuomin' : 'imageTuomin'}?id=${f.id}`;
  if (from === 'message') return `/project/message/uploadTuomin?id=${f.id}`;
  return `${f.kind === 'pdf' ? '/project/pdfTuomin' : '/project/uploadTuomin'}?id=${f.id}`;
}

/** Bytes as KB / MB for the list. */
export function fmtSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < MB) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / MB).toFixed(1)} MB`;
}
