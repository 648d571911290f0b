/**
 * A small flowing layout on pdf-lib for printed reports: A4 pages with margins, paragraphs wrapped to the width
 * (Chinese breaks between any two characters, other text between words, an over-long word by character), tables whose
 * rows grow with their content and continue on the next page with the header repeated, check boxes and empty entry
 * fields, grids with merged cells and content-sized columns split into parts when too wide, and a header and
 * "page X of Y" footer drawn on every page at the end. Nothing is drawn outside the margins.
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
  /** a footnote marker drawn small and raised after the run's last line */
  note?: string;
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
  note?: string;
}

/** A cell of a grid: where it starts and how many columns and rows it covers. */
export interface GridCell {
  col: number;
  colSpan?: number;
  rowSpan?: number;
  runs: Run[];
  fill?: RGB;
  /** at least this wide (room to write in) */
  minWidth?: number;
}

/** A grid (an eCRF table): header rows, then body rows of cells that may span columns and rows. */
export interface GridSpec {
  columns: number;
  /** drawn at the top of each part and again on each page a part continues on */
  header: GridCell[][];
  rows: GridCell[][];
  /** leading columns (row number, row labels) repeated in every part when the columns do not fit the width */
  keyColumns: number;
  /** least height of a body row (room to write in) */
  minRowHeight?: number;
  /** a line over each part of a grid split into parts; from/to count the columns after the key columns, from 1 */
  partTitle?: (part: number, parts: number, from: number, to: number, count: number) => Run[];
}

/** A cell placed in one part of a grid: its first column and row there, its lines, whether it is a header cell. */
interface Placed {
  col: number;
  cols: number;
  row: number;
  rows: number;
  lines: Line[];
  fill?: RGB;
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
      const noteW = r.note ? this.noteWidth(r.note, size) : 0;
      const wrapped = this.wrap(r.text, bold, size, width - indent - noteW);
      wrapped.forEach((text, i) =>
        out.push({
          text,
          bold,
          size,
          color,
          indent,
          ...(i === 0 && r.mark ? { mark: r.mark } : {}),
          ...(i === wrapped.length - 1 && r.note ? { note: r.note } : {}),
        }),
      );
    }
    return out;
  }

  /** The room a footnote marker takes after text of `size`. */
  private noteWidth(note: string, size: number): number {
    return size * 0.2 + this.measure(note, false, size * 0.66);
  }

  /**
   * How narrow runs can get (the widest word, a Chinese character, an entry field; a word longer than `cap` wraps by
   * character) and how wide they are unwrapped.
   */
  extent(runs: Run[], cap = 110): { min: number; max: number } {
    let min = 0;
    let max = 0;
    for (const r of runs) {
      const size = r.size ?? this.size;
      const bold = Boolean(r.bold);
      if (r.field) {
        min = Math.max(min, 36);
        max = Math.max(max, 72, this.measure(this.clean(r.text), bold, size - 1));
        continue;
      }
      const extra = (r.mark ? size * 1.35 : 0) + (r.note ? this.noteWidth(r.note, size) : 0);
      for (const para of this.clean(r.text).split('\n')) {
        max = Math.max(max, this.measure(para.trimEnd(), bold, size) + extra);
        for (const tok of para.match(
          /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+/g,
        ) ?? [])
          min = Math.max(min, Math.min(cap, this.measure(tok, bold, size)) + extra);
      }
    }
    // (a point to spare: text measured exactly as wide as its cell must not wrap on a rounding error)
    return { min: min + 1, max: Math.max(min, max) + 1 };
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
    if (l.note)
      this.page.drawText(l.note, {
        x: x + l.indent + this.measure(l.text, l.bold, l.size) + l.size * 0.2,
        y: baseline + l.size * 0.3,
        size: l.size * 0.66,
        font: this.regular,
        color: GREY,
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
  paragraph(
    runs: Run[],
    opts: { indent?: number; keepWithNext?: number; keepTogether?: boolean } = {},
  ): void {
    const indent = opts.indent ?? 0;
    const lines = this.lines(runs, this.width - indent);
    // (kept on one page when it takes no more than a third of one)
    if (opts.keepTogether) {
      const h = lines.reduce((n, l) => n + this.lineH(l), 0);
      if (h <= (A4[1] - this.margin.top - this.margin.bottom) / 3) this.ensure(h);
    }
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

  /**
   * A grid (an eCRF table) across the width: columns as wide as their content asks (each at least its widest word,
   * the room left shared by how much more each would take unwrapped), cells spanning columns and rows. Columns that
   * do not fit the width go to further parts stacked below, each repeating the key columns; the header rows start
   * each part and are repeated on every page a part continues on. Rows joined by a cell spanning them stay on one
   * page (unless together taller than a page: then the spanning cell's content goes to its first row); a single
   * row taller than a page is split between lines.
   */
  grid(spec: GridSpec): void {
    const pad = 3;
    const C = Math.max(1, spec.columns);
    const K = Math.max(0, Math.min(spec.keyColumns, C - 1));
    const W = this.width;
    const span = (c: GridCell) => Math.max(1, Math.min(c.colSpan ?? 1, C - c.col));
    const colMin = new Array<number>(C).fill(2 * pad + 8);
    const colMax = new Array<number>(C).fill(2 * pad + 8);
    // the width a column asks for when columns are packed into parts: a header label may take two lines there
    const colWant = new Array<number>(C).fill(2 * pad + 8);
    const all = [...spec.header, ...spec.rows];
    for (const row of all)
      for (const cell of row)
        if (span(cell) === 1 && cell.col < C) {
          const e = this.extent(cell.runs);
          if (cell.minWidth) {
            e.min = Math.max(e.min, cell.minWidth);
            e.max = Math.max(e.max, cell.minWidth);
          }
          colMin[cell.col] = Math.max(colMin[cell.col]!, e.min + 2 * pad);
          colMax[cell.col] = Math.max(colMax[cell.col]!, e.max + 2 * pad);
          const want = spec.header.includes(row) ? Math.max(e.min, e.max / 2) : e.max;
          colWant[cell.col] = Math.max(colWant[cell.col]!, want + 2 * pad);
        }
    for (const row of all)
      for (const cell of row) {
        const n = span(cell);
        if (n === 1 || cell.col >= C) continue;
        const e = this.extent(cell.runs);
        const cols = Array.from({ length: n }, (_, i) => cell.col + i);
        const minHave = cols.reduce((a, c) => a + colMin[c]!, 0);
        const maxHave = cols.reduce((a, c) => a + colMax[c]!, 0);
        for (const c of cols) {
          if (e.min + 2 * pad > minHave) colMin[c] = colMin[c]! + (e.min + 2 * pad - minHave) / n;
          if (e.max + 2 * pad > maxHave) colMax[c] = colMax[c]! + (e.max + 2 * pad - maxHave) / n;
          colMax[c] = Math.max(colMax[c]!, colMin[c]!);
        }
      }
    // the width a column is given when packing parts: its unwrapped width, within reason
    const pref = colMin.map((mn, c) => Math.max(mn, Math.min(colWant[c]!, colMax[c]!, 150)));
    const sum = (xs: number[], a: number, b: number) => xs.slice(a, b).reduce((x, y) => x + y, 0);
    // a part may end before column b unless a body cell spans across it
    const breakOk = (b: number) =>
      b >= C || !spec.rows.some((row) => row.some((cell) => cell.col < b && cell.col + span(cell) > b));

    // ── parts ──
    let parts: [number, number][] = [];
    const avail = Math.max(W - sum(pref, 0, K), W * 0.35);
    if (sum(pref, 0, C) <= W || K >= C) parts = [[K, C]];
    else {
      for (let a = K; a < C;) {
        let e = a + 1;
        while (e < C && sum(pref, a, e + 1) <= avail) e += 1;
        if (!breakOk(e)) {
          let b = e - 1;
          while (b > a && !breakOk(b)) b -= 1;
          if (b > a) e = b;
        }
        parts.push([a, e]);
        a = e;
      }
      // the same number of parts, as even as the boundaries allow
      const N = parts.length;
      const best: number[][] = Array.from({ length: N + 1 }, () => new Array<number>(C + 1).fill(Infinity));
      const from: number[][] = Array.from({ length: N + 1 }, () => new Array<number>(C + 1).fill(-1));
      for (let i = K + 1; i <= C; i++) best[1]![i] = sum(pref, K, i);
      for (let n = 2; n <= N; n++)
        for (let i = K + n; i <= C; i++)
          for (let j = K + n - 1; j < i; j++) {
            if (!breakOk(j)) continue;
            const v = Math.max(best[n - 1]![j]!, sum(pref, j, i));
            if (v < best[n]![i]!) {
              best[n]![i] = v;
              from[n]![i] = j;
            }
          }
      if (best[N]![C]! <= avail) {
        const even: [number, number][] = [];
        let i = C;
        for (let n = N; n >= 1; n--) {
          const j = n === 1 ? K : from[n]![i]!;
          even.unshift([j, i]);
          i = j;
        }
        parts = even;
      }
    }

    parts.forEach(([a, b], partNo) => {
      // ── this part's columns and widths ──
      const cols = [
        ...Array.from({ length: K }, (_, i) => i),
        ...Array.from({ length: b - a }, (_, i) => a + i),
      ];
      const local = (c: number) => (c < K ? c : c >= a && c < b ? K + c - a : -1);
      const mins = cols.map((c) => colMin[c]!);
      const maxs = cols.map((c) => colMax[c]!);
      const sumMin = mins.reduce((x, y) => x + y, 0);
      const sumMax = maxs.reduce((x, y) => x + y, 0);
      let widths: number[];
      if (sumMax <= W) {
        // room to spare: the data columns share it by their width (the key columns stay as they are)
        const stretch = maxs.slice(K).reduce((x, y) => x + y, 0);
        widths = maxs.map((m, i) =>
          i < K && stretch > 0 ? m : m + ((W - sumMax) * m) / (stretch || sumMax),
        );
      } else if (sumMin <= W) {
        // growing in stages: every column from its narrowest to what it asks for (a header on two lines), then to
        // its full width within reason (short columns whole), then the long ones share the rest
        const prefs = cols.map((c) => pref[c]!);
        const caps = cols.map((c, i) => Math.max(prefs[i]!, Math.min(colMax[c]!, 150)));
        const stages = [mins, prefs, caps, maxs];
        widths = maxs;
        for (let k = 1; k < stages.length; k++) {
          const lo = stages[k - 1]!;
          const hi = stages[k]!;
          const sumHi = hi.reduce((x, y) => x + y, 0);
          if (sumHi < W) continue;
          const sumLo = lo.reduce((x, y) => x + y, 0);
          const give = sumHi - sumLo;
          widths = lo.map((m, i) => m + (give > 0 ? ((W - sumLo) * (hi[i]! - m)) / give : 0));
          break;
        }
      } else widths = mins.map((m) => (m * W) / sumMin);
      const xs = widths.map((_, i) => this.margin.left + sum(widths, 0, i));
      const wOf = (p: Placed) => sum(widths, p.col, p.col + p.cols);

      // ── cells placed in the part (flattened: rows whose spanning cells lose their row span) ──
      const place = (rows: GridCell[][], header: boolean, flat: Set<number>): Placed[] => {
        const out: Placed[] = [];
        const occ = rows.map(() => new Array<boolean>(cols.length).fill(false));
        rows.forEach((row, r) =>
          row.forEach((cell) => {
            const covered = Array.from({ length: span(cell) }, (_, i) => local(cell.col + i)).filter(
              (x) => x >= 0,
            );
            if (covered.length === 0) return;
            const rs = flat.has(r) ? 1 : Math.max(1, Math.min(cell.rowSpan ?? 1, rows.length - r));
            const col = Math.min(...covered);
            const p: Placed = {
              col,
              cols: covered.length,
              row: r,
              rows: rs,
              lines: [],
              ...(cell.fill ? { fill: cell.fill } : {}),
            };
            p.lines = header || local(cell.col) >= 0 ? this.lines(cell.runs, wOf(p) - 2 * pad) : [];
            for (let y = r; y < r + rs; y++) for (let x = col; x < col + p.cols; x++) occ[y]![x] = true;
            out.push(p);
          }),
        );
        // a position no cell covers is drawn as an empty cell
        occ.forEach((line, r) =>
          line.forEach((taken, c) => {
            if (!taken)
              out.push({
                col: c,
                cols: 1,
                row: r,
                rows: 1,
                lines: [],
                ...(header ? { fill: LIGHT } : {}),
              });
          }),
        );
        return out;
      };
      const contentH = (p: Placed, from = 0) =>
        p.lines.slice(from).reduce((n, l) => n + this.lineH(l), 0) + 2 * pad;
      const heights = (ps: Placed[], n: number, least: number) => {
        const h = new Array<number>(n).fill(least);
        for (const p of ps) if (p.rows === 1) h[p.row] = Math.max(h[p.row]!, contentH(p));
        for (const p of [...ps].filter((x) => x.rows > 1).sort((x, y) => x.rows - y.rows)) {
          const have = sum(h, p.row, p.row + p.rows);
          const need = contentH(p);
          if (need > have) h[p.row + p.rows - 1] = h[p.row + p.rows - 1]! + need - have;
        }
        return h;
      };
      const least = spec.minRowHeight ?? this.lineHeight(this.size) + 2 * pad;
      const header = place(spec.header, true, new Set());
      const headerHs = heights(header, spec.header.length, 0);
      const headerH = sum(headerHs, 0, headerHs.length);
      const capacity = A4[1] - this.margin.top - this.margin.bottom - headerH;
      const groupsOf = (ps: Placed[]) => {
        const out: [number, number][] = [];
        for (let r = 0; r < spec.rows.length;) {
          let end = r + 1;
          for (let changed = true; changed;) {
            changed = false;
            for (const p of ps)
              if (p.row >= r && p.row < end && p.row + p.rows > end) {
                end = p.row + p.rows;
                changed = true;
              }
          }
          out.push([r, end]);
          r = end;
        }
        return out;
      };
      let flat = new Set<number>();
      let body = place(spec.rows, false, flat);
      let hs = heights(body, spec.rows.length, least);
      const tooTall = groupsOf(body).filter(([r, e]) => e - r > 1 && sum(hs, r, e) > capacity);
      if (tooTall.length) {
        flat = new Set(tooTall.flatMap(([r, e]) => Array.from({ length: e - r }, (_, i) => r + i)));
        body = place(spec.rows, false, flat);
        hs = heights(body, spec.rows.length, least);
      }
      const groups = groupsOf(body);

      // ── drawing ──
      const draw = (
        ps: Placed[],
        rowHs: number[],
        r0: number,
        r1: number,
        lines?: { from: Map<Placed, number>; count: Map<Placed, number>; height: number },
      ) => {
        const top = this.y;
        for (const p of ps) {
          if (p.row < r0 || p.row >= r1) continue;
          const y = top - sum(rowHs, r0, p.row);
          const h = lines ? lines.height : sum(rowHs, p.row, p.row + p.rows);
          const w = wOf(p);
          this.page.drawRectangle({
            x: xs[p.col]!,
            y: y - h,
            width: w,
            height: h,
            borderColor: BORDER,
            borderWidth: 0.5,
            ...(p.fill ? { color: p.fill } : {}),
          });
          const f = lines?.from.get(p) ?? 0;
          const n = lines ? (lines.count.get(p) ?? 0) : p.lines.length;
          let lineTop = y - pad;
          for (const l of p.lines.slice(f, f + n)) {
            this.drawLine(l, xs[p.col]! + pad, lineTop, w - 2 * pad);
            lineTop -= this.lineH(l);
          }
        }
        this.y = top - (lines ? lines.height : sum(rowHs, r0, r1));
        this.pageFresh = false;
      };
      const drawHeader = () => {
        if (header.length) draw(header, headerHs, 0, spec.header.length);
      };

      const firstH = groups.length ? Math.min(sum(hs, groups[0]![0], groups[0]![1]), capacity) : 0;
      if (parts.length > 1 && spec.partTitle) {
        this.space(partNo ? 8 : 2);
        this.paragraph(spec.partTitle(partNo + 1, parts.length, a - K + 1, b - K, C - K), {
          keepWithNext: headerH + firstH,
        });
        this.space(2);
      }
      this.ensure(headerH + firstH);
      drawHeader();
      for (const [r0, r1] of groups) {
        const gh = sum(hs, r0, r1);
        if (this.y - gh >= this.margin.bottom) {
          draw(body, hs, r0, r1);
          continue;
        }
        if (gh <= capacity || r1 - r0 > 1) {
          this.newPage();
          drawHeader();
          draw(body, hs, r0, r1);
          continue;
        }
        // one row taller than a page: as many lines of each cell as fit, the rest on the next pages
        const cells = body.filter((p) => p.row === r0);
        const from = new Map(cells.map((p) => [p, 0]));
        let fresh = false;
        for (;;) {
          const rest = Math.max(least, ...cells.map((p) => contentH(p, from.get(p))));
          if (this.y - rest >= this.margin.bottom) {
            draw(body, hs, r0, r1, {
              from,
              count: new Map(cells.map((p) => [p, p.lines.length - from.get(p)!])),
              height: rest,
            });
            break;
          }
          const room = this.y - this.margin.bottom - 2 * pad;
          const count = new Map(
            cells.map((p) => {
              let h = 0;
              let n = 0;
              for (const l of p.lines.slice(from.get(p))) {
                if (h + this.lineH(l) > room) break;
                h += this.lineH(l);
                n += 1;
              }
              return [p, n];
            }),
          );
          const fitting = [...count.values()].reduce((x, y) => x + y, 0);
          if (fitting > 0 && (fresh || fitting >= 3)) {
            draw(body, hs, r0, r1, { from, count, height: this.y - this.margin.bottom });
            for (const p of cells) from.set(p, from.get(p)! + count.get(p)!);
          }
          this.newPage();
          drawHeader();
          fresh = true;
        }
      }
    });
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
