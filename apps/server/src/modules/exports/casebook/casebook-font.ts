/**
 * The casebook's CJK font: Noto Sans Hans (Noto Sans CJK SC, SIL OFL 1.1) Regular and Bold as shipped by the npm
 * package @embedpdf/fonts-sc — installed with the server, never downloaded at run time — or, when that package is
 * absent, Debian's fonts-noto-cjk collection. Only the glyphs a casebook uses are embedded (a subset of ~30–300 KB).
 *
 * pdf-lib embeds through a fontkit. Its own fork (@pdf-lib/fontkit 1.1) writes subsets of CID-keyed CFF fonts such as
 * this one that viewers refuse ("embedded font file may be invalid": poppler draws nothing), so fontkit 2 makes the
 * subset; this adapter gives its subsets the stream interface pdf-lib reads and picks the Simplified Chinese face of
 * a collection (.ttc).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as fontkit from 'fontkit';
import { EventEmitter } from 'node:events';
import type { PDFDocument } from 'pdf-lib';

type PdfLibFontkit = Parameters<PDFDocument['registerFontkit']>[0];

export interface CasebookFonts {
  regular: Uint8Array;
  bold: Uint8Array;
  /** where they came from (logs, docs) */
  source: string;
}

const DEBIAN = '/usr/share/fonts/opentype/noto';

/** The font files: the npm package's, else Debian's collection; null when neither is there. */
export function casebookFontFiles(): { regular: string; bold: string; source: string } | null {
  try {
    // (the package exports only its index: the fonts folder is found from it)
    const entry = createRequire(import.meta.url).resolve('@embedpdf/fonts-sc');
    const dir = path.join(path.dirname(entry), '..', 'fonts');
    const regular = path.join(dir, 'NotoSansHans-Regular.otf');
    const bold = path.join(dir, 'NotoSansHans-Bold.otf');
    if (fs.existsSync(regular) && fs.existsSync(bold)) return { regular, bold, source: '@embedpdf/fonts-sc' };
  } catch {
    // not installed: try Debian's
  }
  const regular = path.join(DEBIAN, 'NotoSansCJK-Regular.ttc');
  const bold = path.join(DEBIAN, 'NotoSansCJK-Bold.ttc');
  if (fs.existsSync(regular))
    return { regular, bold: fs.existsSync(bold) ? bold : regular, source: 'fonts-noto-cjk' };
  return null;
}

let loaded: Promise<CasebookFonts> | null = null;

/** The font bytes, read once per process (≈ 17 MB for the two faces). */
export function casebookFonts(): Promise<CasebookFonts> {
  loaded ??= (async () => {
    const files = casebookFontFiles();
    if (!files)
      throw new Error(
        'no CJK font: install the server dependencies (@embedpdf/fonts-sc) or Debian fonts-noto-cjk',
      );
    const [regular, bold] = await Promise.all([
      fs.promises.readFile(files.regular),
      fs.promises.readFile(files.bold),
    ]);
    return { regular, bold, source: files.source };
  })();
  loaded.catch(() => {
    loaded = null;
  });
  return loaded;
}

/** fontkit 2 in the shape pdf-lib 1.17 calls (create → font whose subset has encodeStream). */
export const fontkitForPdfLib: PdfLibFontkit = {
  create(buffer: Uint8Array, postscriptName?: string) {
    const opened = fontkit.create(buffer, postscriptName);
    const font =
      'fonts' in opened
        ? (opened.getFont('NotoSansCJKsc-Regular') ??
          opened.getFont('NotoSansCJKsc-Bold') ??
          opened.fonts.find((f) => /sc/i.test(f.postscriptName ?? '')) ??
          opened.fonts[0]!)
        : opened;
    const createSubset = font.createSubset.bind(font);
    return Object.assign(font, {
      createSubset: () => {
        const subset = createSubset();
        return Object.assign(subset, {
          encodeStream: () => {
            const out = new EventEmitter();
            setImmediate(() => {
              try {
                out.emit('data', subset.encode());
                out.emit('end');
              } catch (err) {
                out.emit('error', err);
              }
            });
            return out;
          },
        });
      },
    }) as unknown as ReturnType<PdfLibFontkit['create']>;
  },
};
