import { describe, expect, it } from 'vitest';
import { overlappingMasks, type Permission } from '@esource/shared';
import { allowedActions, kindOf, moveRect, rectBetween, resizeRect, reviewPath, uploadProblems } from './document-logic';

const MB = 1024 * 1024;
const file = (name: string, size: number, type = '') => ({ name, size, type });

describe('upload checks before sending', () => {
  it('takes PNG, JPG and PDF by name or type and refuses the rest, naming the file', () => {
    expect(kindOf(file('a.PNG', 1))).toBe('image');
    expect(kindOf(file('scan', 1, 'image/jpeg'))).toBe('image');
    expect(kindOf(file('r.pdf', 1))).toBe('pdf');
    expect(kindOf(file('x.exe', 1))).toBeNull();
    expect(uploadProblems([file('x.exe', 10)], 0)).toEqual([{ key: 'upload.badType', values: { name: 'x.exe' } }]);
  });

  it('applies the spec limits: 2 MB images, 50 MB PDFs, 20 images per upload, 200 files per subject, no empty file', () => {
    expect(uploadProblems([file('a.png', 2 * MB)], 0)).toEqual([]);
    expect(uploadProblems([file('a.png', 2 * MB + 1)], 0)[0]!.key).toBe('upload.imageTooLarge');
    expect(uploadProblems([file('a.pdf', 50 * MB + 1)], 0)[0]!.key).toBe('upload.pdfTooLarge');
    expect(uploadProblems([file('e.png', 0)], 0)[0]!.key).toBe('upload.empty');
    const images = Array.from({ length: 21 }, (_, i) => file(`${i}.jpg`, 100));
    expect(uploadProblems(images, 0).map((p) => p.key)).toEqual(['upload.tooManyImages']);
    expect(uploadProblems([file('a.pdf', 10)], 200)).toEqual([{ key: 'upload.tooManyFiles', values: { max: 200, existing: 200, count: 1 } }]);
    expect(uploadProblems([], 0)[0]!.key).toBe('upload.noFile');
  });
});

describe('box geometry', () => {
  const page = { width: 100, height: 50 };
  it('draws from any corner and stays inside the page', () => {
    expect(rectBetween({ x: 80, y: 40 }, { x: 120, y: -5 }, page)).toEqual({ x: 80, y: 0, width: 20, height: 40 });
  });
  it('moves a box whole inside the page and resizes it from its corner with a minimum', () => {
    const r = { x: 10, y: 10, width: 30, height: 20 };
    expect(moveRect(r, 100, 100, page)).toEqual({ x: 70, y: 30, width: 30, height: 20 });
    expect(moveRect(r, -50, -50, page)).toEqual({ x: 0, y: 0, width: 30, height: 20 });
    expect(resizeRect(r, -100, 100, page)).toEqual({ x: 10, y: 10, width: 4, height: 40 });
  });
});

describe('actions by status and permission (the shared transition table)', () => {
  const crc = new Set<Permission>(['source:file:submit', 'source:file:withdraw', 'source:file:upload']);
  const dm = new Set<Permission>(['source:file:audit']);
  const has = (s: Set<Permission>) => (p: Permission) => s.has(p);
  it('lets the site edit and submit a waiting file, and submit again after a failed audit', () => {
    expect(allowedActions(1, has(crc))).toEqual(['submit', 'edit', 'redeid']);
    expect(allowedActions(-1, has(crc))).toEqual(['submit', 'edit', 'redeid']);
    // a failed automatic de-identification may only be run again
    expect(allowedActions(-2, has(crc))).toEqual(['redeid']);
    expect(allowedActions(2, has(crc))).toEqual(['withdraw']);
    expect(allowedActions(0, has(crc))).toEqual([]);
    // an upload waiting for confirmation (the project's fileConfirmConfig): confirm or discard, with source:file:submit
    expect(allowedActions(-3, has(crc))).toEqual(['confirm', 'discard']);
    expect(allowedActions(-3, has(new Set<Permission>(['source:file:upload'])))).toEqual([]);
    expect(allowedActions(-99, has(crc))).toEqual([]);
    // an ISF document's boxes: the ISF's upload permission
    expect(allowedActions(1, has(new Set<Permission>(['source:file:submit', 'isf:file:upload'])), true)).toEqual(['submit', 'edit', 'redeid']);
    expect(allowedActions(1, has(new Set<Permission>(['source:file:submit', 'source:file:upload'])), true)).toEqual(['submit']);
  });
  it('lets a reviewer pass or fail a waiting-audit file only', () => {
    expect(allowedActions(2, has(dm))).toEqual(['pass', 'fail']);
    expect(allowedActions(1, has(dm))).toEqual([]);
    expect(allowedActions(3, has(dm))).toEqual([]);
  });
  it('opens images and PDFs on their own review route', () => {
    expect(reviewPath({ id: 3, kind: 'pdf' })).toBe('/project/pdfTuomin?id=3');
    expect(reviewPath({ id: 4, kind: 'image' })).toBe('/project/uploadTuomin?id=4');
    expect(reviewPath({ id: 4, kind: 'image' }, 'message')).toBe('/project/message/uploadTuomin?id=4');
    expect(reviewPath({ id: 5, kind: 'pdf', isfKindId: 2 })).toBe('/project/researchFile/pdfTuomin?id=5');
    expect(reviewPath({ id: 6, kind: 'image', isfKindId: 2 })).toBe('/project/researchFile/imageTuomin?id=6');
  });
});

describe('text masking', () => {
  it('refuses overlapping selections on a line and allows touching or other lines', () => {
    expect(overlappingMasks([{ line: 0, start: 0, end: 5 }, { line: 0, start: 4, end: 8 }])).toEqual([[0, 1]]);
    expect(overlappingMasks([{ line: 0, start: 0, end: 5 }, { line: 0, start: 5, end: 8 }])).toEqual([]);
    expect(overlappingMasks([{ line: 0, start: 0, end: 5 }, { line: 1, start: 0, end: 5 }])).toEqual([]);
  });
});
