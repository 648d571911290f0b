/**
 * Test support of the ODM tests (not exported by the package): the demo study's design (fixtures/seed-design.json,
 * a copy of apps/server/src/seed/seed-design.ts) extended with a form that has every field type, a checkbox in a
 * plain and in a cycle form, a table with a display condition, and zh text with characters XML must escape; and the
 * real xmllint CLI run on a document.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { designExportFile, type DesignExportFile } from '@esource/shared';
import { ODM_SCHEMA_DIR } from './odm-validate';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');
export const CDISC_EXAMPLES = [
  'MetaData_Dave_1_3_2_new_2006_01_26_extra_languages.xml',
  'cdash-odm-test.xml',
  'odm-data-snapshot.xml',
];

const TRICKY = `A&B <x> "q" 'a'`;

/** The seed design plus form XT (all types) and cycle form XC, both at V1 and the unscheduled visit. */
export function richDesign(): DesignExportFile {
  const seed = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, 'seed-design.json'), 'utf8'),
  ) as DesignExportFile;
  const xt = {
    name: `全类型 & <测试> "表单"`,
    nameEn: `All types & <test>`,
    code: 'XT',
    components: [
      {
        id: 'txt',
        type: 'text',
        label: `文本 ${TRICKY}`,
        labelEn: `Text ${TRICKY}`,
        variable: 'TXT',
        required: true,
      },
      { id: 'memo', type: 'textarea', label: '备注', variable: 'MEMO' },
      {
        id: 'num1',
        type: 'number',
        label: '任意小数',
        labelEn: 'Any decimal',
        variable: 'NUM1',
        unit: 'µmol/L',
      },
      {
        id: 'num2',
        type: 'number',
        label: '两位小数',
        labelEn: 'Two decimals',
        variable: 'NUM2',
        precision: 2,
        min: 0.5,
        max: 99.99,
        softRange: true,
        unit: '10^9/L',
      },
      {
        id: 'num3',
        type: 'number',
        label: '整数',
        labelEn: 'Integer',
        variable: 'NUM3',
        precision: 0,
        min: -10,
      },
      { id: 'dt', type: 'date', label: '日期', labelEn: 'Date', variable: 'DT' },
      {
        id: 'pdt',
        type: 'date',
        label: '不完整日期',
        labelEn: 'Partial date',
        variable: 'PDT',
        partialDate: true,
      },
      { id: 'dtm', type: 'datetime', label: '日期时间', labelEn: 'Date and time', variable: 'DTM' },
      {
        id: 'rad',
        type: 'radio',
        label: '单选',
        labelEn: 'Single choice',
        variable: 'RAD',
        options: [
          { value: '1', label: `是 & <对>`, labelEn: 'Yes & <right>', mapping: 'Y' },
          { value: '2', label: '否', labelEn: 'No', mapping: 'N' },
        ],
      },
      {
        id: 'sel',
        type: 'select',
        label: '下拉',
        variable: 'SEL',
        options: [
          { value: 'a"b', label: `引号 "x"` },
          { value: `c'd`, label: `撇号 'y'` },
        ],
      },
      {
        id: 'chk',
        type: 'checkbox',
        label: '多选（可多项）',
        labelEn: 'Select all that apply',
        variable: 'CHK',
        required: true,
        displayCondition: 'RAD == "1"',
        options: [
          { value: 'A', label: '甲', labelEn: 'Alpha', mapping: 'ALPHA' },
          { value: 'B', label: '乙', labelEn: 'Beta' },
          { value: 'C', label: '丙 < 丁', labelEn: 'Gamma < Delta', mapping: 'GAMMA' },
        ],
      },
      { id: 'att', type: 'file', label: '附件', labelEn: 'Attachment', variable: 'ATT' },
      {
        id: 'tbl',
        type: 'table',
        label: '表格',
        rows: 2,
        cols: 2,
        displayCondition: 'NUM3 < 5',
        cells: [
          { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: '标题' },
          {
            row: 1,
            col: 0,
            rowSpan: 1,
            colSpan: 1,
            component: { id: 't1', type: 'number', label: '格一', variable: 'T1', precision: 1 },
          },
          {
            row: 1,
            col: 1,
            rowSpan: 1,
            colSpan: 1,
            component: { id: 't2', type: 'text', label: '格二', variable: 'T2', displayCondition: 'T1 > 0' },
          },
        ],
      },
      {
        id: 'after',
        type: 'text',
        label: '表后',
        variable: 'AFTER',
        displayCondition: `TXT == "A&B" and NUM1 < 3`,
      },
    ],
  };
  const xc = {
    name: '症状日志',
    nameEn: 'Symptom log',
    code: 'XC',
    cycle: true,
    components: [
      {
        id: 'sym',
        type: 'checkbox',
        label: '症状',
        labelEn: 'Symptoms',
        variable: 'SYM',
        options: [
          { value: 'F', label: '发热', labelEn: 'Fever' },
          { value: 'C', label: '咳嗽', labelEn: 'Cough' },
        ],
      },
      {
        id: 'sev',
        type: 'select',
        label: '程度',
        labelEn: 'Severity',
        variable: 'SEV',
        options: [{ value: '1', label: '轻', labelEn: 'Mild', mapping: 'MILD' }],
      },
    ],
  };
  return designExportFile.parse({
    ...seed,
    forms: [...seed.forms, xt, xc],
    visits: seed.visits.map((v) =>
      v.code === 'V1' || v.code === 'UNS' ? { ...v, forms: [...v.forms, 'XT', 'XC'] } : v,
    ),
  });
}

/** Runs the real xmllint CLI (`xmllint --noout --nonet --schema`) on a document; returns its exit code and stderr. */
export function xmllintCli(xml: string): { code: number; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odm-'));
  const file = path.join(dir, 'doc.xml');
  fs.writeFileSync(file, xml);
  try {
    execFileSync(
      '/usr/bin/xmllint',
      ['--noout', '--nonet', '--schema', path.join(ODM_SCHEMA_DIR, 'ODM1-3-2.xsd'), file],
      { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 },
    );
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { status?: number; stderr?: Buffer };
    return { code: err.status ?? -1, stderr: err.stderr?.toString() ?? String(e) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
