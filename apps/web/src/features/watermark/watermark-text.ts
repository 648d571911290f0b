import { LIMITS, maskPhone } from '@esource/shared';

export { maskPhone };

export interface WatermarkInput {
  name: string;
  phone: string | null;
  org: string | null;
  time: string;
  hospital: string | null;
}

/** The watermark's lines (spec §2): name and masked phone, organisation, system time, hospital. */
export function watermarkLines(w: WatermarkInput): string[] {
  const first = [w.name, maskPhone(w.phone)].filter(Boolean).join(' ');
  const hospital = w.hospital && w.hospital !== w.org ? w.hospital : '';
  return [first, w.org ?? '', w.time, hospital].filter((s) => s.trim() !== '');
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
}

/** One 300×200 tile as an SVG data URL, text rotated −20°, faint. */
export function watermarkTile(lines: string[]): string {
  const { width, height } = LIMITS.watermarkTile;
  const text = lines
    .map((l, i) => `<tspan x="${width / 2}" dy="${i === 0 ? 0 : 18}">${escapeXml(l)}</tspan>`)
    .join('');
  const y = height / 2 - ((lines.length - 1) * 18) / 2;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<text x="${width / 2}" y="${y}" text-anchor="middle" transform="rotate(-20 ${width / 2} ${height / 2})" ` +
    `font-family="sans-serif" font-size="13" fill="rgba(0,0,0,0.10)">${text}</text></svg>`;
  return `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}")`;
}
