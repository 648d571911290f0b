/**
 * A small flowing layout on pdf-lib for printed reports: A4 pages with margins, paragraphs wrapped to the width
 * (Chinese breaks between any two characters, other text between words, an over-long word by character), tables whose
 * rows grow with their content and continue on the next page with the header repeated, check boxes and empty entry
 * fields, and a header and "page X of Y" footer drawn on every page at the end. Nothing is drawn outside the margins.
 */
import { rgb, type PDFDocument, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';

export const A4: [number, number] = [595.28, 841.89];

/** A piece of a cell or paragraph: text, optionally with a mark before it, or an empty entry field. */
export interface Run {
  text: string;
  bold?: boolean;
  size?: number;
  color?: RGB;
  /** a box or circle before the text (blank forms' options), ticked or not */
  mark?: 'square' | 'circle';
  /** an empty field to write in, as wide as the cell, with this text (a unit) after it */
  field?: boolean;
}

export interface Column {
  /** share of the table's width */
  width: number;
  header: string;
}

export interface TableRow {
  cells: Run[][];
  /** one cell across the whole row (a sub-heading) */
  span?: boolean;
  fill?: RGB;
}

interface Line {
  text: string;
  bold: boolean;
  size: number;
  color: RGB;
  mark?: 'square' | 'circle';
  /** indent of this line (continuation lines of a marked run) */
  indent: number;
  field?: boolean;
}

export const GREY = rgb(0.42, 0.42, 0.42);
export const LIGHT = rgb(0.93, 0.94, 0.96);
export const BLACK = rgb(0.1, 0.1, 0.1);
const BORDER = rgb(0.7, 0.72, 0.76);

const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/;

export class PdfLayout {
  readonly doc: PDFDocument;
  private page!: PDFPage;
  private y = 0;
  private readonly widths = new Map<string, number>();
  readonly margin = { left: 40, right: 40, top: 58, bottom: 48 };
  /** the size of body text */
  readonly size = 9;
  private pageFresh = true;

  constructor(
    doc: PDFDocument,
    private readonly regular: PDFFont,
    private readonly bold: PDFFont,
    /** code points the fonts can draw; anything else prints as '?' */
    private readonly drawable: (codePoint: number) => boolean,
  ) {
    this.doc = doc;
  }

  get width(): number {
    return A4[0] - this.margin.left - this.margin.right;
  }

  get pageCount(): number {
    return this.doc.getPageCount();
  }

  /** Text the fonts can draw: controls and tabs become spaces, characters without a glyph '?'. */
  clean(s: string): string {
    let out = '';
    for (const ch of s.replace(/\r\n?/g, '\n').replace(/\t/g, '    ')) {
      const cp = ch.codePointAt(0)!;
      if (ch === '\n') out += ch;
      else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += ' ';
      else out += this.drawable(cp) ? ch : '?';
    }
    return out;
  }

  private font(bold: boolean): PDFFont {
    return bold ? this.bold : this.regular;
  }

  /** Width of text in points (per-character advances, cached). */
  measure(text: string, bold: boolean, size: number): number {
    let w = 0;
    for (const ch of text) {
      const k = `${bold ? 'b' : 'r'}${ch}`;
      let cw = this.widths.get(k);
      if (cw === undefined) {
        cw = this.font(bold).widthOfTextAtSize(ch, 1000) / 1000;
        this.widths.set(k, cw);
      }
      w += cw * size;
    }
    return w;
  }

  /** Splits text into lines no wider than `width`. */
  wrap(text: string, bold: boolean, size: number, width: number): string[] {
    const out: string[] = [];
    for (const para of this.clean(text).split('\n')) {
      // tokens: a CJK character alone, a word with its following spaces, or spaces
      const tokens = para.match(
        /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+\s*|\s+/g,
      ) ?? [''];
      let line = '';
      let lineW = 0;
      const flush = () => {
        out.push(line.trimEnd());
        line = '';
        lineW = 0;
      };
      for (const tok of tokens) {
        const w = this.measure(tok, bold, size);
        if (lineW + this.measure(tok.trimEnd(), bold, size) <= width) {
          line += tok;
          lineW += w;
          continue;
        }
        if (line.trim() !== '') flush();
        else line = '';
        if (this.measure(tok.trimEnd(), bold, size) <= width) {
          line = CJK.test(tok) ? tok : tok.trimStart();
          lineW = this.measure(line, bold, size);
          continue;
        }
        // a word wider than the line: by character
        for (const ch of tok.trimEnd()) {
          const cw = this.measure(ch, bold, size);
          if (lineW + cw > width && line !== '') flush();
          line += ch;
          lineW += cw;
        }
      }
      out.push(line.trimEnd());
    }
    return out;
  }

  private lineHeight(size: number): number {
    return size * 1.38;
  }

  /** Runs laid out into lines of a cell `width` wide. */
  private lines(runs: Run[], width: number): Line[] {
    const out: Line[] = [];
    for (const r of runs) {
      const size = r.size ?? this.size;
      const color = r.color ?? BLACK;
      const bold = Boolean(r.bold);
      if (r.field) {
        out.push({ text: '', bold, size, color, indent: 0, field: true });
        if (r.text)
          out.push(
            ...this.wrap(r.text, bold, size - 1, width).map((text) => ({
              text,
              bold,
              size: size - 1,
              color: GREY,
              indent: 0,
            })),
          );
        continue;
      }
      const indent = r.mark ? size * 1.35 : 0;
      this.wrap(r.text, bold, size, width - indent).forEach((text, i) =>
        out.push({ text, bold, size, color, indent, ...(i === 0 && r.mark ? { mark: r.mark } : {}) }),
      );
    }
    return out;
  }

  private lineH(l: Line): number {
    return l.field ? this.lineHeight(l.size) + 6 : this.lineHeight(l.size);
  }

  private drawLine(l: Line, x: number, top: number, width: number): void {
    const h = this.lineH(l);
    if (l.field) {
      this.page.drawRectangle({
        x,
        y: top - h + 2,
        width,
        height: h - 4,
        borderColor: rgb(0.45, 0.45, 0.45),
        borderWidth: 0.6,
      });
      return;
    }
    const baseline = top - l.size * 1.05;
    if (l.mark) {
      const s = l.size * 0.78;
      const cx = x + s / 2;
      const cy = baseline + l.size * 0.33;
      if (l.mark === 'square')
        this.page.drawRectangle({
          x: cx - s / 2,
          y: cy - s / 2,
          width: s,
          height: s,
          borderColor: BLACK,
          borderWidth: 0.6,
        });
      else
        this.page.drawEllipse({
          x: cx,
          y: cy,
          xScale: s / 2,
          yScale: s / 2,
          borderColor: BLACK,
          borderWidth: 0.6,
        });
    }
    if (l.text)
      this.page.drawText(l.text, {
        x: x + l.indent,
        y: baseline,
        size: l.size,
        font: this.font(l.bold),
        color: l.color,
      });
  }

  newPage(): void {
    this.freeze();
    this.page = this.doc.addPage(A4);
    this.y = A4[1] - this.margin.top;
    this.pageFresh = true;
  }

  /**
   * Turns the current page's drawing operations into one compressed stream. pdf-lib keeps every operation of every
   * page as objects until it saves (≈ 0.5 MB per page of tables); a finished page never changes, so its operations are
   * serialised now and memory stays flat whatever the page count. (pdf-lib 1.17 keeps the page's open stream in the
   * fields below; a later drawing on the page — the header and footer — starts a new stream.)
   */
  freeze(): void {
    if (!this.page) return;
    const p = this.page as unknown as {
      contentStream?: { getUnencodedContents(): Uint8Array };
      contentStreamRef?: Parameters<PDFDocument['context']['assign']>[0];
    };
    if (!p.contentStream || !p.contentStreamRef) return;
    this.doc.context.assign(
      p.contentStreamRef,
      this.doc.context.flateStream(p.contentStream.getUnencodedContents()),
    );
    p.contentStream = undefined;
    p.contentStreamRef = undefined;
  }

  /** Moves down; starts a new page when less than `needed` points are left. */
  space(points: number, needed = 0): void {
    if (this.y - Math.max(points, needed) < this.margin.bottom) this.newPage();
    else this.y -= points;
  }

  ensure(needed: number): void {
    if (this.y - needed < this.margin.bottom) this.newPage();
  }

  /** A paragraph of runs across the full width (or indented), wrapped and broken across pages between lines. */
  paragraph(runs: Run[], opts: { indent?: number; keepWithNext?: number } = {}): void {
    const indent = opts.indent ?? 0;
    const lines = this.lines(runs, this.width - indent);
    lines.forEach((l, i) => {
      const h = this.lineH(l);
      this.ensure(i === 0 ? h + (opts.keepWithNext ?? 0) : h);
      this.drawLine(l, this.margin.left + indent, this.y, this.width - indent);
      this.y -= h;
      this.pageFresh = false;
    });
  }

  /** A shaded bar with a title (visit and form headings); kept with `keepWithNext` points of what follows. */
  heading(text: string, opts: { size?: number; fill?: RGB; keepWithNext?: number } = {}): void {
    const size = opts.size ?? 11;
    const lines = this.wrap(text, true, size, this.width - 12);
    const h = lines.length * this.lineHeight(size) + 8;
    this.ensure(h + (opts.keepWithNext ?? 0));
    this.page.drawRectangle({
      x: this.margin.left,
      y: this.y - h,
      width: this.width,
      height: h,
      color: opts.fill ?? LIGHT,
    });
    let top = this.y - 4;
    for (const l of lines) {
      this.page.drawText(l, {
        x: this.margin.left + 6,
        y: top - size * 1.05,
        size,
        font: this.bold,
        color: BLACK,
      });
      top -= this.lineHeight(size);
    }
    this.y -= h;
    this.pageFresh = false;
  }

  /**
   * A table: a header row (repeated on each page it continues on), then rows as tall as their tallest cell. A row
   * that does not fit the rest of the page moves to the next; one taller than a page is split between lines.
   */
  table(columns: Column[], rows: TableRow[]): void {
    const total = columns.reduce((n, c) => n + c.width, 0);
    const widths = columns.map((c) => (c.width / total) * this.width);
    const pad = 3;
    const header: TableRow = {
      cells: columns.map((c) => [{ text: c.header, bold: true, size: this.size - 0.5 }]),
      fill: LIGHT,
    };
    const layout = (r: TableRow) =>
      r.span
        ? [this.lines(r.cells[0] ?? [], this.width - 2 * pad)]
        : widths.map((w, i) => this.lines(r.cells[i] ?? [], w - 2 * pad));
    const headerLines = layout(header);
    const heightOf = (cells: Line[][], from: number[] = cells.map(() => 0), upTo = Infinity) =>
      Math.max(
        ...cells.map((ls, i) =>
          ls
            .slice(from[i], upTo === Infinity ? undefined : (from[i] ?? 0) + upTo)
            .reduce((n, l) => n + this.lineH(l), 0),
        ),
      ) +
      2 * pad;
    const headerH = heightOf(headerLines);

    const drawRow = (r: TableRow, cells: Line[][], from: number[], counts: number[], h: number) => {
      let x = this.margin.left;
      const ws = r.span ? [this.width] : widths;
      ws.forEach((w, i) => {
        this.page.drawRectangle({
          x,
          y: this.y - h,
          width: w,
          height: h,
          borderColor: BORDER,
          borderWidth: 0.5,
          ...(r.fill ? { color: r.fill } : {}),
        });
        let top = this.y - pad;
        for (const l of (cells[i] ?? []).slice(from[i], (from[i] ?? 0) + (counts[i] ?? 0))) {
          this.drawLine(l, x + pad, top, w - 2 * pad);
          top -= this.lineH(l);
        }
        x += w;
      });
      this.y -= h;
      this.pageFresh = false;
    };
    const drawHeader = () =>
      drawRow(
        header,
        headerLines,
        headerLines.map(() => 0),
        headerLines.map((l) => l.length),
        headerH,
      );

    this.ensure(headerH + 24);
    drawHeader();
    for (const r of rows) {
      const cells = layout(r);
      const from = cells.map(() => 0);
      for (;;) {
        const left = cells.map((ls, i) => ls.length - from[i]!);
        const rest = heightOf(cells, from);
        if (this.y - rest >= this.margin.bottom) {
          drawRow(r, cells, from, left, rest);
          break;
        }
        // how many lines of each cell fit here
        const room = this.y - this.margin.bottom - 2 * pad;
        const counts = cells.map((ls, i) => {
          let h = 0;
          let n = 0;
          for (const l of ls.slice(from[i])) {
            if (h + this.lineH(l) > room) break;
            h += this.lineH(l);
            n += 1;
          }
          return n;
        });
        // a row that fits a fresh page moves there whole; only a taller one is split between lines
        const fullPage = A4[1] - this.margin.top - this.margin.bottom - headerH;
        const fitsSome =
          rest > fullPage &&
          counts.some((n, i) => n > 0 && n < left[i]!) &&
          counts.reduce((a, b) => a + b, 0) >= 3;
        if (fitsSome) {
          drawRow(r, cells, from, counts, this.y - this.margin.bottom);
          counts.forEach((n, i) => (from[i] = from[i]! + n));
        }
        this.newPage();
        drawHeader();
      }
    }
  }

  /** Draws on every page but the first: a header (left and right text) and the footer "page X of Y" text. */
  decorate(
    header: { left: string; right: string },
    footer: (page: number, pages: number) => { left: string; right: string },
  ): void {
    this.freeze();
    const pages = this.doc.getPages();
    const size = 7.5;
    pages.forEach((p, i) => {
      const f = footer(i + 1, pages.length);
      const top = A4[1] - this.margin.top + 22;
      if (i > 0) {
        const left = this.fit(header.left, size, this.width * 0.62);
        const right = this.fit(header.right, size, this.width * 0.36);
        p.drawText(left, { x: this.margin.left, y: top, size, font: this.regular, color: GREY });
        p.drawText(right, {
          x: A4[0] - this.margin.right - this.measure(right, false, size),
          y: top,
          size,
          font: this.regular,
          color: GREY,
        });
        p.drawLine({
          start: { x: this.margin.left, y: top - 5 },
          end: { x: A4[0] - this.margin.right, y: top - 5 },
          thickness: 0.5,
          color: BORDER,
        });
      }
      const bottom = this.margin.bottom - 24;
      const fl = this.fit(f.left, size, this.width * 0.6);
      const fr = this.fit(f.right, size, this.width * 0.38);
      p.drawText(fl, { x: this.margin.left, y: bottom, size, font: this.regular, color: GREY });
      p.drawText(fr, {
        x: A4[0] - this.margin.right - this.measure(fr, false, size),
        y: bottom,
        size,
        font: this.regular,
        color: GREY,
      });
    });
  }

  /** One line of text cut with '…' to fit `width`. */
  fit(text: string, size: number, width: number): string {
    const t = this.clean(text).replace(/\n/g, ' ');
    if (this.measure(t, false, size) <= width) return t;
    let out = '';
    for (const ch of t) {
      if (this.measure(`${out}${ch}…`, false, size) > width) break;
      out += ch;
    }
    return `${out}…`;
  }

  /** Whether nothing has been drawn on the current page yet. */
  get fresh(): boolean {
    return this.pageFresh;
  }
}
