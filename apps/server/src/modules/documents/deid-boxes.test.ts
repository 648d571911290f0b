import { describe, expect, it } from 'vitest';
import { pageBoxes, textItemPiece } from './deid-boxes';

const LIMITS = { width: 1200, height: 800 };
const piece = (text: string, x: number, y: number, width: number) => textItemPiece({ text, x, y, width, height: 20 }, LIMITS);

describe('pageBoxes: the page text the detectors read', () => {
  it('keeps a line that text detection cut in two together (a hospital name across the cut is found and boxed in both pieces)', () => {
    const boxes = pageBoxes(0, [piece('Discharged from Riverside Community', 40, 100, 420), piece('Hospital on 2026-01-25.', 480, 101, 260)], { policy: { maskHospitalNames: true } });
    const hospital = boxes.filter((b) => b.kind === 'hospital');
    expect(hospital.length).toBe(2);
    expect(hospital.some((b) => b.x > 440 && b.x + b.width > 480)).toBe(true);
  });

  it('does not join pieces of different lines into one (a label at the end of one line, a value on the next, stays apart from the line beside)', () => {
    const boxes = pageBoxes(0, [piece('Glucose 5.6 mmol/L', 40, 100, 220), piece('Riverside Community Hospital', 40, 140, 320)], { policy: { maskHospitalNames: true } });
    expect(boxes.filter((b) => b.kind === 'hospital').every((b) => b.y >= 130)).toBe(true);
  });
});
