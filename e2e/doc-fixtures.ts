/**
 * Source documents for the journeys, generated (no real patient): a photographed Chinese lab report (PNG, rendered
 * with Noto CJK — scripts/ensure-system-packages.mjs installs it — slightly rotated and greyed like a phone photo) and an
 * English discharge summary PDF with a real text layer. Each carries a name, an ID number and a phone number next
 * to clinical values that must survive de-identification.
 */
import sharp from 'sharp';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** A valid GB 11643 number (check digit X). */
export const LAB_ID_CARD = '11010519491231002X';
export const LAB_NAME = '王建国';
export const LAB_PHONE = '13912345678';

export async function labReportPng(): Promise<Buffer> {
  const rows = [
    ['白细胞计数 WBC', '6.8', '10^9/L', '3.5-9.5'],
    ['血红蛋白 HGB', '132', 'g/L', '130-175'],
    ['血小板 PLT', '215', '10^9/L', '125-350'],
    ['葡萄糖 GLU', '5.6', 'mmol/L', '3.9-6.1'],
  ];
  const table = rows
    .map(
      (r, i) =>
        `<text x="60" y="${330 + i * 46}">${r[0]}</text><text x="430" y="${330 + i * 46}">${r[1]}</text><text x="560" y="${330 + i * 46}">${r[2]}</text><text x="720" y="${330 + i * 46}">${r[3]}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="620">
  <rect width="100%" height="100%" fill="#fbfaf6"/>
  <g font-family="Noto Sans CJK SC" fill="#1a1a1a">
    <text x="300" y="62" font-size="34" font-weight="bold">示范市人民医院检验报告单</text>
    <g font-size="24">
      <text x="60" y="130">姓名：${LAB_NAME}</text><text x="380" y="130">性别：男</text><text x="600" y="130">年龄：76岁</text>
      <text x="60" y="180">身份证号：${LAB_ID_CARD}</text>
      <text x="60" y="230">联系电话：${LAB_PHONE}</text><text x="600" y="230">科室：心内科</text>
      <line x1="50" y1="260" x2="950" y2="260" stroke="#333" stroke-width="2"/>
      <text x="60" y="292" font-weight="bold">项目</text><text x="430" y="292" font-weight="bold">结果</text><text x="560" y="292" font-weight="bold">单位</text><text x="720" y="292" font-weight="bold">参考范围</text>
      ${table}
      <text x="60" y="560">报告日期：2026-11-20</text>
    </g>
  </g>
</svg>`;
  return sharp(Buffer.from(svg))
    .rotate(1.2, { background: '#e9e7e1' })
    .modulate({ brightness: 0.97 })
    .png()
    .toBuffer();
}

export async function dischargePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([595.28, 841.89]);
  const line = (text: string, y: number, f = font, size = 12) => page.drawText(text, { x: 60, y, size, font: f, color: rgb(0.1, 0.1, 0.1) });
  line('Demo City Hospital - Discharge Summary', 780, bold, 16);
  line('Patient: John Smith', 740);
  line(`ID card: ${LAB_ID_CARD}`, 720);
  line('Phone: +1 415 555 0132', 700);
  line('Diagnosis: Community-acquired pneumonia', 660);
  line('Creatinine 88 umol/L; CRP 12 mg/L at discharge', 640);
  line('Medication: amoxicillin 500 mg three times daily for 5 days', 620);
  const page2 = doc.addPage([595.28, 841.89]);
  page2.drawText('Follow-up visit in 2 weeks. Chest X-ray clear.', { x: 60, y: 780, size: 12, font });
  return Buffer.from(await doc.save());
}
