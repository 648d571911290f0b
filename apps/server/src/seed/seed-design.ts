/**
 * The demo study's design (idempotent): version 1.0 published to UAT and PRO with three stages, a screening
 * visit, two scheduled visits with windows, an unscheduled visit, and eight forms — demographics (with a display
 * condition), vital signs (a table with merged cells), laboratory tests (week 4; filled from the hospital) and the
 * log (cycle) forms a safety judgement writes into — adverse events, concomitant medications, procedures, medical
 * and surgical history — at the treatment visits (CDASH variables, CDISC submission values).
 */
import { eq } from 'drizzle-orm';
import { formDefinition, type FormDefinitionInput } from '@esource/shared';
import type { Db } from '../db/client';
import { designVersions, forms, stages, visitForms, visits } from '../db/schema';
import { recordAudit } from '../modules/audit/audit.service';

const YES_NO = [
  { value: 'Y', label: '是', labelEn: 'Yes', mapping: 'Y' },
  { value: 'N', label: '否', labelEn: 'No', mapping: 'N' },
];

export const DEMO_FORMS: FormDefinitionInput[] = [
  {
    name: '人口学资料',
    nameEn: 'Demographics',
    code: 'DM',
    components: [
      { id: 'brthdtc', type: 'date', label: '出生日期', labelEn: 'Date of birth', variable: 'BRTHDTC', required: true },
      {
        id: 'sex',
        type: 'radio',
        label: '性别',
        labelEn: 'Sex',
        variable: 'SEX',
        required: true,
        options: [
          { value: '1', label: '男', labelEn: 'Male', mapping: 'M' },
          { value: '2', label: '女', labelEn: 'Female', mapping: 'F' },
        ],
      },
      {
        id: 'pregnant',
        type: 'radio',
        label: '是否妊娠',
        labelEn: 'Pregnant',
        variable: 'PREG',
        required: true,
        displayCondition: 'SEX == "2"',
        options: [
          { value: 'Y', label: '是', labelEn: 'Yes', mapping: 'Y' },
          { value: 'N', label: '否', labelEn: 'No', mapping: 'N' },
        ],
      },
      { id: 'ethnic', type: 'select', label: '民族', labelEn: 'Ethnicity', variable: 'ETHNIC', options: [
        { value: 'HAN', label: '汉族', labelEn: 'Han' },
        { value: 'OTHER', label: '其他', labelEn: 'Other' },
      ] },
    ],
  },
  {
    name: '生命体征',
    nameEn: 'Vital signs',
    code: 'VS',
    labelWidth: 140,
    components: [
      { id: 'vsdtc', type: 'datetime', label: '测量时间', labelEn: 'Measured at', variable: 'VSDTC', required: true },
      {
        id: 'bp',
        type: 'table',
        label: '血压',
        labelEn: 'Blood pressure',
        rows: 2,
        cols: 2,
        cells: [
          { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: '坐位静息 5 分钟后测量（mmHg）', textEn: 'Seated, after 5 minutes at rest (mmHg)' },
          { row: 1, col: 0, rowSpan: 1, colSpan: 1, component: { id: 'sysbp', type: 'number', label: '收缩压', labelEn: 'Systolic', variable: 'SYSBP', unit: 'mmHg', precision: 0, min: 40, max: 300, required: true } },
          { row: 1, col: 1, rowSpan: 1, colSpan: 1, component: { id: 'diabp', type: 'number', label: '舒张压', labelEn: 'Diastolic', variable: 'DIABP', unit: 'mmHg', precision: 0, min: 20, max: 200, required: true } },
        ],
      },
      // an expected (soft) range: a value outside is kept and flagged for a data-quality query
      { id: 'hr', type: 'number', label: '心率', labelEn: 'Heart rate', variable: 'HR', unit: 'bpm', precision: 0, min: 40, max: 180, softRange: true },
      { id: 'weight', type: 'number', label: '体重', labelEn: 'Weight', variable: 'WEIGHT', unit: 'kg', precision: 1 },
    ],
  },
  {
    // filled from the hospital's laboratory results (issue 11): LOINC-coded, with units the hospital may write
    // differently (g/dL → g/L, 10*3/uL → 10^9/L); the demo mapping rules are seeded with the demo hospital
    name: '实验室检查',
    nameEn: 'Laboratory tests',
    code: 'LB',
    labelWidth: 160,
    components: [
      { id: 'lbdtc', type: 'datetime', label: '采样时间', labelEn: 'Collected at', variable: 'LBDTC' },
      { id: 'hgb', type: 'number', label: '血红蛋白', labelEn: 'Hemoglobin', variable: 'HGB', unit: 'g/L', precision: 0, min: 30, max: 250, softRange: true },
      { id: 'wbc', type: 'number', label: '白细胞计数', labelEn: 'White blood cells', variable: 'WBC', unit: '10^9/L', precision: 2, min: 0, max: 200 },
      { id: 'plt', type: 'number', label: '血小板计数', labelEn: 'Platelets', variable: 'PLT', unit: '10^9/L', precision: 0, min: 0, max: 2000 },
      { id: 'na', type: 'number', label: '血钠', labelEn: 'Sodium', variable: 'NA', unit: 'mmol/L', precision: 1, min: 100, max: 180 },
      { id: 'k', type: 'number', label: '血钾', labelEn: 'Potassium', variable: 'K', unit: 'mmol/L', precision: 1, min: 1, max: 10 },
      { id: 'creat', type: 'number', label: '肌酐', labelEn: 'Creatinine', variable: 'CREAT', unit: 'mg/dL', precision: 2, min: 0, max: 30 },
      { id: 'gluc', type: 'number', label: '血糖', labelEn: 'Glucose', variable: 'GLUC', unit: 'mg/dL', precision: 0, min: 10, max: 1000 },
    ],
  },
  {
    name: '不良事件',
    nameEn: 'Adverse events',
    code: 'AE',
    cycle: true,
    components: [
      { id: 'aeterm', type: 'text', label: '不良事件名称', labelEn: 'Adverse event term', variable: 'AETERM', required: true },
      // the start of an adverse event may be known to the month or year only
      { id: 'aestdtc', type: 'date', label: '开始日期', labelEn: 'Start date', variable: 'AESTDTC', required: true, partialDate: true },
      { id: 'aesev', type: 'select', label: '严重程度', labelEn: 'Severity', variable: 'AESEV', options: [
        { value: '1', label: '轻度', labelEn: 'Mild', mapping: 'MILD' },
        { value: '2', label: '中度', labelEn: 'Moderate', mapping: 'MODERATE' },
        { value: '3', label: '重度', labelEn: 'Severe', mapping: 'SEVERE' },
      ] },
      { id: 'aeser', type: 'radio', label: '是否严重不良事件', labelEn: 'Serious', variable: 'AESER', options: [
        { value: 'Y', label: '是', labelEn: 'Yes', mapping: 'Y' },
        { value: 'N', label: '否', labelEn: 'No', mapping: 'N' },
      ] },
      { id: 'aesae', type: 'textarea', label: 'SAE 描述', labelEn: 'SAE narrative', variable: 'AESAEDESC', displayCondition: 'AESER == "Y"' },
      // written by a safety reviewer's judgement (issue 13): CDASH variables, CDISC submission values as mappings
      { id: 'aedecod', type: 'text', label: '编码术语', labelEn: 'Coded term', variable: 'AEDECOD' },
      { id: 'aeendtc', type: 'date', label: '结束日期', labelEn: 'End date', variable: 'AEENDTC', partialDate: true },
      { id: 'aeongo', type: 'radio', label: '是否持续', labelEn: 'Ongoing', variable: 'AEONGO', options: YES_NO },
      { id: 'aetoxgr', type: 'select', label: 'CTCAE 分级', labelEn: 'CTCAE grade', variable: 'AETOXGR', options: [1, 2, 3, 4, 5].map((g) => ({ value: String(g), label: `${g} 级`, labelEn: `Grade ${g}`, mapping: String(g) })) },
      { id: 'aerel', type: 'select', label: '与研究药物的关系', labelEn: 'Relationship to study drug', variable: 'AEREL', options: [
        { value: '1', label: '无关', labelEn: 'Not related', mapping: 'NOT RELATED' },
        { value: '2', label: '可能无关', labelEn: 'Unlikely related', mapping: 'UNLIKELY RELATED' },
        { value: '3', label: '可能有关', labelEn: 'Possibly related', mapping: 'POSSIBLY RELATED' },
        { value: '4', label: '很可能有关', labelEn: 'Probably related', mapping: 'PROBABLY RELATED' },
        { value: '5', label: '肯定有关', labelEn: 'Related', mapping: 'RELATED' },
      ] },
      { id: 'aeacn', type: 'select', label: '对研究药物采取的措施', labelEn: 'Action taken with study drug', variable: 'AEACN', options: [
        { value: '1', label: '剂量不变', labelEn: 'Dose not changed', mapping: 'DOSE NOT CHANGED' },
        { value: '2', label: '减量', labelEn: 'Dose reduced', mapping: 'DOSE REDUCED' },
        { value: '3', label: '暂停用药', labelEn: 'Drug interrupted', mapping: 'DRUG INTERRUPTED' },
        { value: '4', label: '停药', labelEn: 'Drug withdrawn', mapping: 'DRUG WITHDRAWN' },
        { value: '5', label: '加量', labelEn: 'Dose increased', mapping: 'DOSE INCREASED' },
        { value: '6', label: '不适用', labelEn: 'Not applicable', mapping: 'NOT APPLICABLE' },
        { value: '7', label: '未知', labelEn: 'Unknown', mapping: 'UNKNOWN' },
      ] },
      { id: 'aeout', type: 'select', label: '转归', labelEn: 'Outcome', variable: 'AEOUT', options: [
        { value: '1', label: '痊愈', labelEn: 'Recovered/resolved', mapping: 'RECOVERED/RESOLVED' },
        { value: '2', label: '好转', labelEn: 'Recovering/resolving', mapping: 'RECOVERING/RESOLVING' },
        { value: '3', label: '未好转', labelEn: 'Not recovered/not resolved', mapping: 'NOT RECOVERED/NOT RESOLVED' },
        { value: '4', label: '痊愈伴后遗症', labelEn: 'Recovered with sequelae', mapping: 'RECOVERED/RESOLVED WITH SEQUELAE' },
        { value: '5', label: '死亡', labelEn: 'Fatal', mapping: 'FATAL' },
        { value: '6', label: '未知', labelEn: 'Unknown', mapping: 'UNKNOWN' },
      ] },
    ],
  },
  {
    name: '合并用药',
    nameEn: 'Concomitant medications',
    code: 'CM',
    cycle: true,
    components: [
      { id: 'cmtrt', type: 'text', label: '药物名称', labelEn: 'Medication', variable: 'CMTRT', required: true },
      { id: 'cmdecod', type: 'text', label: '编码药名', labelEn: 'Coded drug', variable: 'CMDECOD' },
      { id: 'cmdose', type: 'number', label: '单次剂量', labelEn: 'Dose', variable: 'CMDOSE', precision: 3, min: 0 },
      { id: 'cmdosu', type: 'text', label: '剂量单位', labelEn: 'Dose unit', variable: 'CMDOSU' },
      { id: 'cmroute', type: 'select', label: '给药途径', labelEn: 'Route', variable: 'CMROUTE', options: [
        { value: '1', label: '口服', labelEn: 'Oral', mapping: 'ORAL' },
        { value: '2', label: '静脉', labelEn: 'Intravenous', mapping: 'INTRAVENOUS' },
        { value: '3', label: '肌内注射', labelEn: 'Intramuscular', mapping: 'INTRAMUSCULAR' },
        { value: '4', label: '皮下注射', labelEn: 'Subcutaneous', mapping: 'SUBCUTANEOUS' },
        { value: '5', label: '外用', labelEn: 'Topical', mapping: 'TOPICAL' },
        { value: '6', label: '吸入', labelEn: 'Inhalation', mapping: 'INHALATION' },
        { value: '9', label: '其他', labelEn: 'Other', mapping: 'OTHER' },
      ] },
      { id: 'cmdosfrq', type: 'select', label: '频率', labelEn: 'Frequency', variable: 'CMDOSFRQ', options: ['QD', 'BID', 'TID', 'QID', 'QW', 'PRN', 'ONCE', 'OTHER'].map((f) => ({ value: f, label: f, mapping: f })) },
      { id: 'cmindc', type: 'text', label: '适应症', labelEn: 'Indication', variable: 'CMINDC' },
      { id: 'cmstdtc', type: 'date', label: '开始日期', labelEn: 'Start date', variable: 'CMSTDTC', partialDate: true },
      { id: 'cmendtc', type: 'date', label: '结束日期', labelEn: 'End date', variable: 'CMENDTC', partialDate: true },
      { id: 'cmongo', type: 'radio', label: '是否持续', labelEn: 'Ongoing', variable: 'CMONGO', options: YES_NO },
    ],
  },
  {
    name: '手术/操作',
    nameEn: 'Procedures',
    code: 'PR',
    cycle: true,
    components: [
      { id: 'prtrt', type: 'text', label: '手术/操作名称', labelEn: 'Procedure', variable: 'PRTRT', required: true },
      { id: 'prdecod', type: 'text', label: '编码名称', labelEn: 'Coded procedure', variable: 'PRDECOD' },
      { id: 'prstdtc', type: 'date', label: '日期', labelEn: 'Date', variable: 'PRSTDTC', partialDate: true },
    ],
  },
  {
    name: '既往病史',
    nameEn: 'Medical history',
    code: 'MH',
    cycle: true,
    components: [
      { id: 'mhterm', type: 'text', label: '疾病名称', labelEn: 'Condition', variable: 'MHTERM', required: true },
      { id: 'mhdecod', type: 'text', label: '编码名称', labelEn: 'Coded condition', variable: 'MHDECOD' },
      { id: 'mhstdtc', type: 'date', label: '开始日期', labelEn: 'Onset date', variable: 'MHSTDTC', partialDate: true },
      { id: 'mhongo', type: 'radio', label: '是否持续', labelEn: 'Ongoing', variable: 'MHONGO', options: YES_NO },
    ],
  },
  {
    name: '手术史',
    nameEn: 'Surgical history',
    code: 'SH',
    cycle: true,
    components: [
      { id: 'shtrt', type: 'text', label: '手术名称', labelEn: 'Surgery', variable: 'PRTRT', required: true },
      { id: 'shdecod', type: 'text', label: '编码名称', labelEn: 'Coded surgery', variable: 'PRDECOD' },
      { id: 'shstdtc', type: 'date', label: '手术日期', labelEn: 'Date of surgery', variable: 'PRSTDTC', partialDate: true },
    ],
  },
];

export async function seedDemoDesign(db: Db, projectId: number): Promise<boolean> {
  const [existing] = await db.select({ id: designVersions.id }).from(designVersions).where(eq(designVersions.projectId, projectId)).limit(1);
  if (existing) return false;
  await db.transaction(async (tx) => {
    const [v] = await tx
      .insert(designVersions)
      .values({ projectId, versionNo: 1, name: 'v1.0', status: 1, publishedEnvs: ['PRO', 'UAT'], publishedAt: new Date() })
      .returning();
    const stageIds: number[] = [];
    for (const [i, name] of ['筛选期 Screening', '治疗期 Treatment', '随访期 Follow-up'].entries()) {
      const [st] = await tx.insert(stages).values({ versionId: v!.id, name, sortOrder: i }).returning();
      stageIds.push(st!.id);
    }
    const formIds: Record<string, number> = {};
    for (const [i, def] of DEMO_FORMS.entries()) {
      const parsed = formDefinition.parse(def);
      const [f] = await tx
        .insert(forms)
        .values({ versionId: v!.id, code: parsed.code, name: parsed.name, nameEn: parsed.nameEn ?? null, definition: parsed, sortOrder: i })
        .returning();
      formIds[parsed.code] = f!.id;
    }
    const plan = [
      { code: 'V1', name: '筛选访视', nameEn: 'Screening', stage: 0, order: 1, day: 0, before: 0, after: 0, forms: ['DM', 'VS'] },
      // the log forms sit with the adverse events at the treatment visits (screening stays two forms: its completion
      // moves a new subject on to the treatment)
      { code: 'V2', name: '第 2 周', nameEn: 'Week 2', stage: 1, order: 2, day: 14, before: 3, after: 3, forms: ['VS', 'AE', 'CM', 'PR', 'MH', 'SH'] },
      { code: 'V3', name: '第 4 周', nameEn: 'Week 4', stage: 2, order: 3, day: 28, before: 3, after: 7, forms: ['VS', 'LB', 'AE', 'CM', 'PR', 'MH', 'SH'] },
      { code: 'UNS', name: '计划外访视', nameEn: 'Unscheduled visit', stage: 1, order: 9, day: 0, before: 0, after: 0, forms: ['VS', 'AE'], unscheduled: true },
    ];
    for (const p of plan) {
      const [vi] = await tx
        .insert(visits)
        .values({
          versionId: v!.id,
          stageId: stageIds[p.stage]!,
          code: p.code,
          name: p.name,
          nameEn: p.nameEn,
          sortOrder: p.order,
          dayOffset: p.day,
          windowBefore: p.before,
          windowAfter: p.after,
          unscheduled: p.unscheduled ?? false,
        })
        .returning();
      await tx.insert(visitForms).values(p.forms.map((c, i) => ({ visitId: vi!.id, formId: formIds[c]!, sortOrder: i })));
    }
    await recordAudit(tx, { userId: null, userName: 'seed', requestId: null, ip: null, env: null }, [
      { action: 'version.publish', entity: 'version', entityId: v!.id, projectId, field: 'publishedEnvs', newValue: 'PRO,UAT' },
    ]);
  });
  return true;
}
