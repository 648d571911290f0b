import { describe, expect, it } from 'vitest';
import { analyteById } from './analyte-match';
import { conversionFactor, unitFor, unitKey, type UnitInfo } from './lab-units';

const A = (id: string) => {
  const a = analyteById(id);
  if (!a) throw new Error(id);
  return a;
};
/** value in `from` → value in `to` for the analyte */
function convert(id: string, value: number, from: string, to: string): number | undefined {
  const a = A(id);
  const f = unitFor(from, a);
  const t = unitFor(to, a);
  if (!f || f === 'incompatible' || !t || t === 'incompatible') return undefined;
  const k = conversionFactor(f, t, a);
  return k === undefined ? undefined : value * k;
}

describe('unitKey', () => {
  it('writes the spellings of one unit alike', () => {
    for (const u of [
      '10^9/L',
      '10*9/L',
      '×10⁹/L',
      'x10^9/L',
      '10E9/L',
      '10⁹/L',
      '×10^9/L',
      ' 10^9 / L ',
      '１０^９/Ｌ',
    ])
      expect(unitKey(u), u).toBe('10^9/l');
    for (const u of ['10*3/uL', '10^3/µL', '10^3/μL', 'x10^3/uL', '10³/uL'])
      expect(unitKey(u), u).toBe('10^3/ul');
    expect(unitKey('µmol/L')).toBe('umol/l');
    expect(unitKey('μmol/L')).toBe('umol/l');
    expect(unitKey('[iU]/L')).toBe('iu/l');
    expect(unitKey('{cells}/uL')).toBe('cells/ul');
    expect(unitKey('{INR}')).toBe('{inr}');
    expect(unitKey('10\\S\\9/L')).toBe('10^9/l'); // HL7 v2 escapes '^' in OBX-6
  });
});

describe('unitFor', () => {
  it("reads 'g/L' as grams for a mass analyte and as 10⁹ per litre for a count", () => {
    expect(unitFor('g/L', A('hemoglobin'))).toEqual({ dim: 'mass', factor: 1 });
    expect(unitFor('g/l', A('wbc'))).toEqual({ dim: 'count', factor: 1 });
    expect(unitFor('giga.l-1', A('platelets'))).toEqual({ dim: 'count', factor: 1 });
  });

  it('tells a unit of something else (a percentage of a count) from an unknown unit', () => {
    expect(unitFor('%', A('neutrophils'))).toBe('incompatible');
    expect(unitFor('U/L', A('hemoglobin'))).toBe('incompatible');
    expect(unitFor('g/l-1', A('hemoglobin'))).toBeUndefined();
    expect(unitFor('furlongs', A('alt'))).toBeUndefined();
    expect(unitFor('', A('alt'))).toBeUndefined();
    expect(unitFor(null, A('alt'))).toBeUndefined();
  });

  it('an INR needs no unit', () => {
    expect(unitFor('', A('inr'))).toEqual({ dim: 'ratio', factor: 1 });
    expect(unitFor(undefined, A('inr'))).toEqual({ dim: 'ratio', factor: 1 });
    expect(unitFor('{INR}', A('inr'))).toEqual({ dim: 'ratio', factor: 1 });
  });

  it('mass ↔ molar only with a molar mass', () => {
    // albumin has none in the table: mg/dL → mmol/L is refused rather than guessed
    expect(unitFor('mmol/L', A('albumin'))).toBe('incompatible');
    expect(unitFor('mg/dL', A('glucose'))).toEqual({ dim: 'mass', factor: 0.01 });
  });
});

describe('conversions', () => {
  const near = (x: number | undefined, y: number, digits = 6) => {
    expect(x).toBeDefined();
    expect(x!).toBeCloseTo(y, digits);
  };

  it('haemoglobin: g/dL, g/L, mmol/L (CTCAE: 10.0 g/dL = 100 g/L = 6.2 mmol/L)', () => {
    near(convert('hemoglobin', 10, 'g/dL', 'g/L'), 100);
    near(convert('hemoglobin', 100, 'g/l', 'g/dL'), 10);
    near(convert('hemoglobin', 10, 'g/dL', 'mmol/L'), 6.21, 2);
    near(convert('hemoglobin', 8, 'g/dL', 'mmol/L'), 4.96, 2);
  });

  it('cell counts: 10⁹/L = 10³/µL = K/µL = /nL; /mm³ and cells/µL are 10⁻³ of them', () => {
    for (const u of ['10^9/L', '10*3/uL', 'K/uL', '×10⁹/L', '/nL', 'Gpt/L', '10^3/mm3', 'thou/uL'])
      near(convert('platelets', 75, u, '10*9/L'), 75);
    for (const u of ['/mm3', 'cells/uL', '{cells}/uL', '/uL', '/mm³', '/cumm'])
      near(convert('platelets', 75000, u, '10*9/L'), 75);
    near(convert('wbc', 4.08, '10^12/L', '10*9/L'), 4080);
  });

  it('mg/dL ↔ mmol/L and µmol/L with the molar mass', () => {
    near(convert('glucose', 55, 'mg/dL', 'mmol/L'), 3.053, 3);
    near(convert('glucose', 3, 'mmol/L', 'mg/dL'), 54.05, 2);
    near(convert('creatinine', 1, 'mg/dL', 'umol/L'), 88.4, 1);
    near(convert('creatinine', 88.4, 'µmol/L', 'mg/dL'), 1, 3);
    near(convert('bilirubin', 1, 'mg/dL', 'µmol/L'), 17.1, 1);
    near(convert('cholesterol', 300, 'mg/dL', 'mmol/L'), 7.76, 2);
    near(convert('triglycerides', 150, 'mg/dL', 'mmol/L'), 1.69, 2);
    near(convert('calcium', 10, 'mg/dL', 'mmol/L'), 2.495, 3);
    near(convert('magnesium', 3, 'mg/dL', 'mmol/L'), 1.234, 3);
    near(convert('uric-acid', 7, 'mg/dL', 'umol/L'), 416.4, 1);
  });

  it('mEq/L: monovalent ions 1:1, calcium and magnesium 2 mEq per mmol', () => {
    near(convert('potassium', 5.5, 'mEq/L', 'mmol/L'), 5.5);
    near(convert('sodium', 140, 'meq/l', 'mmol/L'), 140);
    near(convert('calcium', 5, 'mEq/L', 'mmol/L'), 2.5);
    near(convert('magnesium', 2, 'mEq/L', 'mmol/L'), 1);
    near(convert('calcium', 5, 'mEq/L', 'mg/dL'), 10.02, 2);
  });

  it('enzyme activity: U/L = IU/L, 1 µkat/L = 60 U/L', () => {
    for (const u of ['U/L', 'IU/L', '[IU]/L', 'iu/l', 'mU/mL']) near(convert('alt', 40, u, 'U/L'), 40);
    near(convert('alt', 1, 'µkat/L', 'U/L'), 60);
    near(convert('alt', 0.5, 'ukat/L', 'U/L'), 30);
  });

  it('mass units of one analyte', () => {
    near(convert('albumin', 3, 'g/dL', 'g/L'), 30);
    near(convert('fibrinogen', 50, 'mg/dL', 'g/L'), 0.5);
  });

  it('refuses what cannot be converted', () => {
    const count: UnitInfo = { dim: 'count', factor: 1 };
    const mass: UnitInfo = { dim: 'mass', factor: 1 };
    expect(conversionFactor(count, mass, A('wbc'))).toBeUndefined();
    expect(conversionFactor(mass, { dim: 'molar', factor: 1 }, A('albumin'))).toBeUndefined();
  });
});
