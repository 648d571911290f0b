/**
 * Generator of clinical document images with ground truth for the de-identification benchmarks (issue 12):
 * Chinese and English lab reports, discharge summaries, outpatient records and prescriptions, A4 at 150 dpi
 * (1240 × 1754), drawn from SVG with sharp ('Noto Sans CJK SC' / 'Noto Serif CJK SC' / 'DejaVu Sans').
 *
 * Every identifier (patient and contact names, resident ID numbers with GB 11643 check digits, mobile and landline
 * numbers, medical record / inpatient / outpatient numbers, addresses, e-mails, dates of birth, hospitals, doctors)
 * and every value that must stay (lab results and units, drugs and doses, diagnoses; and the visit, sampling,
 * admission and report dates that the default policy keeps) is its own <tspan> in its line. Its ground-truth box is measured, not estimated: the line is drawn again alone with every other tspan
 * transparent (same advances, so the same layout) in a band of the page, and sharp's trim gives the ink box. About a
 * third of the pages are degraded: rotated 1–3° (in the SVG, so the boxes are rotated with the same transform: the
 * polygon is the ink box rotated, `box` its bounding box), gaussian noise + blur (JPEG), or low contrast.
 * Deterministic: page i depends only on (seed, i), so `--pages 4` gives the first 4 pages of the default 40.
 *
 *   node --import tsx bench/deid-docs.ts [--pages 40] [--seed 12] [--out bench/results/deid-docs]
 *   (writes <page id>.png|jpg and <page id>.json with the truth; bench/results is ignored by git)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export type IdKind =
  | 'name'
  | 'idCard'
  | 'phone'
  | 'landline'
  | 'medicalRecordNo'
  | 'inpatientNo'
  | 'outpatientNo'
  | 'address'
  | 'email'
  | 'birthDate'
  | 'hospital'
  | 'doctor';
export const ID_KINDS: readonly IdKind[] = [
  'name',
  'idCard',
  'phone',
  'landline',
  'medicalRecordNo',
  'inpatientNo',
  'outpatientNo',
  'address',
  'email',
  'birthDate',
  'hospital',
  'doctor',
];

export interface Point {
  x: number;
  y: number;
}
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One string on the page whose glyphs are known: an identifier (kind), a clinical value, or a date the default policy keeps. */
export interface TruthItem {
  kind: IdKind | 'clinical' | 'date';
  text: string;
  /** the whole line it is in (for reports) */
  line: string;
  /** the ink box's corners (rotated with the page): top-left, top-right, bottom-right, bottom-left */
  polygon: [Point, Point, Point, Point];
  /** axis-aligned bounding box of the polygon, whole pixels */
  box: Rect;
  /** font size of its line, px */
  fontSize: number;
}

/** What the subject record holds (what the de-identification job passes as the subject's known identifiers). */
export interface SubjectRecord {
  name: string;
  initials: string;
  medicalRecordId?: string;
  inpatientId?: string;
  outpatientId?: string;
  idCard?: string;
}

export type DocType = 'lab' | 'discharge' | 'outpatient' | 'prescription';
export interface Degradation {
  rotate?: number;
  noise?: number;
  lowContrast?: boolean;
}

export interface GeneratedPage {
  index: number;
  id: string;
  lang: 'zh' | 'en';
  doc: DocType;
  degradation: Degradation;
  width: number;
  height: number;
  format: 'png' | 'jpeg';
  bytes: Buffer;
  identifiers: TruthItem[];
  clinical: TruthItem[];
  /** visit, sampling, admission and report dates (with their times): not identifiers under the default policy */
  dates: TruthItem[];
  subject: SubjectRecord;
}

export const PAGE_WIDTH = 1240;
export const PAGE_HEIGHT = 1754;

// ── seeded randomness ──

/** mulberry32 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rand {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  gauss(): number {
    const u = Math.max(1e-12, this.next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}

// ── identifier pools ──

// [surname, pinyin initial(s)]
const ZH_SURNAMES: readonly [string, string][] = (
  '王W李L张Z刘L陈C杨Y黄H赵Z吴W周Z徐X孙S马M朱Z胡H郭G何H高G林L罗L郑Z梁L谢X宋S唐T许X韩H冯F邓D曹C彭P曾Z肖X田T董D袁Y潘P蒋J蔡C余Y杜D叶Y程C苏S魏W吕L丁D沈S姚Y卢L钟Z谭T陆L汪W范F金J石S廖L贾J夏X韦W方F白B邹Z孟M熊X秦Q邱Q江J尹Y薛X段D雷L侯H龙L史S陶T黎L贺H顾G毛M郝H龚G邵S万W钱Q严Y覃Q武W戴D莫M孔K向X汤T'.match(
    /../g,
  ) ?? []
).map((p) => [p[0]!, p[1]!]);
const ZH_COMPOUND: readonly [string, string][] = [
  ['欧阳', 'OY'],
  ['司马', 'SM'],
  ['上官', 'SG'],
  ['诸葛', 'ZG'],
  ['皇甫', 'HF'],
  ['东方', 'DF'],
  ['令狐', 'LH'],
  ['慕容', 'MR'],
  ['夏侯', 'XH'],
  ['司徒', 'ST'],
  ['尉迟', 'YC'],
  ['公孙', 'GS'],
];
const ZH_GIVEN: readonly [string, string][] = (
  '伟W芳F娜N敏M静J丽L强Q磊L军J洋Y勇Y艳Y杰J娟J涛T明M超C霞X平P刚G辉H玲L桂G英Y华H建J国G文W红H梅M鑫X宇Y浩H博B婷T雪X琳L晨C欣X怡Y思S佳J子Z轩X然R涵H睿R泽Z俊J凯K斌B波B鹏P飞F志Z海H春C秀X兰L凤F珍Z玉Y萍P琴Q云Y燕Y丹D莉L倩Q颖Y瑶Y'.match(
    /../g,
  ) ?? []
).map((p) => [p[0]!, p[1]!]);

function zhName(r: Rand): { name: string; initials: string } {
  const roll = r.next();
  const [sur, si] = roll < 0.18 ? r.pick(ZH_COMPOUND) : r.pick(ZH_SURNAMES);
  // 2 characters (surname + 1), 3 (surname + 2), 4 (compound + 2); a compound surname takes 1 or 2
  const given = roll < 0.18 ? (r.chance(0.75) ? 2 : 1) : r.chance(0.35) ? 1 : 2;
  let name = sur;
  let initials = si;
  for (let i = 0; i < given; i++) {
    const [c, ci] = r.pick(ZH_GIVEN);
    name += c;
    initials += ci;
  }
  return { name, initials };
}

const EN_FIRST = [
  'James',
  'John',
  'Robert',
  'Michael',
  'William',
  'David',
  'Richard',
  'Joseph',
  'Thomas',
  'Charles',
  'Mary',
  'Patricia',
  'Jennifer',
  'Linda',
  'Elizabeth',
  'Barbara',
  'Susan',
  'Jessica',
  'Sarah',
  'Karen',
  'Emily',
  'Olivia',
  'Daniel',
  'Matthew',
  'Anthony',
  'Mark',
  'Steven',
  'Andrew',
  'Kevin',
  'Brian',
  'Laura',
  'Rachel',
  'Megan',
  'Wei',
  'Mei',
  'Hiroshi',
  'Priya',
  'Ahmed',
  'Sofia',
  'Lucas',
];
const EN_LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Wilson',
  'Anderson',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Thompson',
  'White',
  'Harris',
  'Clark',
  'Lewis',
  'Walker',
  'Hall',
  'Young',
  "O'Brien",
  'Murphy',
  'Kelly',
  'Nguyen',
  'Patel',
  'Kim',
  'Chen',
  'Wong',
  'Sullivan',
  'McCarthy',
  'Fitzgerald',
  'Smith-Jones',
  'Tanaka',
  'Hassan',
];

function enName(r: Rand): { first: string; last: string; full: string; initials: string } {
  const first = r.pick(EN_FIRST);
  const last = r.pick(EN_LAST);
  const middle = r.chance(0.3) ? `${String.fromCharCode(65 + r.int(0, 25))}.` : '';
  const full = [first, middle, last].filter(Boolean).join(' ');
  return { first, last, full, initials: `${first[0]}${middle ? middle[0] : ''}${last[0]}` };
}

const ID_AREAS = [
  '110105',
  '110108',
  '310104',
  '310115',
  '440305',
  '440106',
  '330106',
  '510107',
  '420111',
  '320102',
  '370102',
  '610113',
  '500103',
  '210102',
  '230103',
  '350203',
  '430104',
  '120101',
];
const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];

/** An 18-character resident ID number with its GB 11643 (ISO 7064 MOD 11-2) check character. */
export function idCard(area: string, birth: { y: number; m: number; d: number }, seq: string): string {
  const first17 = `${area}${birth.y}${String(birth.m).padStart(2, '0')}${String(birth.d).padStart(2, '0')}${seq}`;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i]!;
  return first17 + '10X98765432'[sum % 11]!;
}

function birthOf(r: Rand): { y: number; m: number; d: number } {
  const y = r.int(1940, 2004);
  const m = r.int(1, 12);
  const d = r.int(1, [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!);
  return { y, m, d };
}

const CN_MOBILE = [
  '138',
  '139',
  '135',
  '136',
  '186',
  '187',
  '150',
  '151',
  '158',
  '177',
  '199',
  '133',
  '189',
  '181',
  '166',
];
function mobile(r: Rand): string {
  const n = `${r.pick(CN_MOBILE)}${r.digits(8)}`;
  const style = r.int(0, 5);
  if (style === 4) return `${n.slice(0, 3)}-${n.slice(3, 7)}-${n.slice(7)}`;
  if (style === 5) return `${n.slice(0, 3)} ${n.slice(3, 7)} ${n.slice(7)}`;
  return n;
}
const CN_AREA: readonly [string, number][] = [
  ['010', 8],
  ['021', 8],
  ['020', 8],
  ['0755', 8],
  ['0571', 8],
  ['028', 8],
  ['027', 8],
  ['025', 8],
  ['022', 8],
];
function landlineZh(r: Rand): string {
  const [area, n] = r.pick(CN_AREA);
  const local = `${r.int(5, 8)}${r.digits(n - 1)}`;
  return r.chance(0.2) ? `(${area})${local}` : `${area}-${local}`;
}
const US_AREA = ['617', '312', '206', '512', '614', '303', '503', '415', '212', '713'];
function phoneUs(r: Rand): string {
  const a = r.pick(US_AREA);
  const ex = `${r.int(2, 9)}${r.digits(2)}`;
  const line = r.digits(4);
  const style = r.int(0, 3);
  if (style === 1) return `${a}-${ex}-${line}`;
  if (style === 2) return `+1 ${a} ${ex} ${line}`;
  if (style === 3) return `${a}.${ex}.${line}`;
  return `(${a}) ${ex}-${line}`;
}

const ZH_CITIES: readonly [string, readonly string[], readonly string[]][] = [
  [
    '北京市',
    ['朝阳区', '海淀区', '西城区', '东城区', '丰台区'],
    ['建国路', '学院路', '中关村大街', '朝阳北路', '复兴门外大街'],
  ],
  [
    '上海市',
    ['浦东新区', '徐汇区', '静安区', '闵行区'],
    ['科苑路', '淮海中路', '南京西路', '漕溪北路', '张杨路'],
  ],
  ['广东省深圳市', ['南山区', '福田区', '罗湖区'], ['深南大道', '科技南路', '华强北路', '东门中路']],
  ['广东省广州市', ['天河区', '越秀区', '海珠区'], ['天河路', '中山五路', '江南大道']],
  ['浙江省杭州市', ['西湖区', '拱墅区', '滨江区'], ['文三路', '莫干山路', '江南大道', '天目山路']],
  ['四川省成都市', ['武侯区', '锦江区', '青羊区'], ['人民南路', '天府大道', '春熙路']],
  ['湖北省武汉市', ['洪山区', '武昌区', '江汉区'], ['珞喻路', '中南路', '解放大道']],
  ['江苏省南京市', ['鼓楼区', '玄武区'], ['中山路', '北京西路', '珠江路']],
  ['天津市', ['和平区', '南开区'], ['南京路', '卫津路', '鞍山道']],
];
const ZH_ESTATES = ['阳光花园', '金色家园', '翠湖小区', '华侨新村', '锦绣公寓', '世纪花园', '幸福小区'];
function addressZh(r: Rand): string {
  if (r.chance(0.15)) {
    const prov = r.pick([
      '河北省保定市清苑区',
      '河南省周口市太康县',
      '山东省临沂市沂南县',
      '安徽省阜阳市临泉县',
    ]);
    return `${prov}${r.pick(['东闾乡', '城关镇', '李庄镇', '杨桥乡'])}${r.pick(['北王庄村', '前进村', '张楼村', '河东村'])}${r.int(1, 9)}组${r.int(1, 60)}号`;
  }
  const [city, districts, streets] = r.pick(ZH_CITIES);
  let a = `${city}${r.pick(districts)}${r.pick(streets)}${r.int(1, 999)}号`;
  if (r.chance(0.6))
    a += `${r.pick(ZH_ESTATES)}${r.int(1, 30)}${r.pick(['栋', '号楼'])}${r.chance(0.5) ? `${r.int(1, 6)}单元` : ''}${r.int(1, 32)}${String(r.int(1, 8)).padStart(2, '0')}室`;
  return a;
}
const EN_STREETS = [
  'Beacon',
  'Maple',
  'Oak',
  'Washington',
  'Elm',
  'Park',
  'Cedar',
  'Lincoln',
  'Highland',
  'Sunset',
  'Nelson Mandela',
  'River',
  'Lake Shore',
  'Pine Hill',
];
const EN_TYPES = ['Street', 'Avenue', 'Road', 'Drive', 'Lane', 'Boulevard', 'Court', 'St.', 'Ave.'];
const EN_CITIES = [
  'Boston, MA 02108',
  'Springfield, IL 62704',
  'Seattle, WA 98101',
  'Austin, TX 78701',
  'Columbus, OH 43215',
  'Denver, CO 80202',
  'Portland, OR 97205',
  'Chicago, IL 60611',
];
function addressEn(r: Rand): string {
  const unit = r.chance(0.35)
    ? `, ${r.pick(['Apt.', 'Apt', 'Suite', 'Unit'])} ${r.int(1, 40)}${r.chance(0.3) ? String.fromCharCode(65 + r.int(0, 5)) : ''}`
    : '';
  return `${r.int(1, 9999)} ${r.pick(EN_STREETS)} ${r.pick(EN_TYPES)}${unit}, ${r.pick(EN_CITIES)}`;
}

function emailOf(r: Rand, local: string, zh: boolean): string {
  const domains = zh
    ? ['163.com', 'qq.com', '126.com', 'sina.com', 'foxmail.com']
    : ['gmail.com', 'outlook.com', 'yahoo.com', 'comcast.net', 'icloud.com'];
  const sep = r.pick(['', '.', '_']);
  return `${local.toLowerCase().replace(/[^a-z]/g, '')}${sep}${r.int(1, 99)}@${r.pick(domains)}`;
}

const ZH_HOSPITALS = [
  '北京协和医院',
  '复旦大学附属中山医院',
  '浙江大学医学院附属第一医院',
  '四川大学华西医院',
  '中山大学附属第一医院',
  '上海市第六人民医院',
  '深圳市人民医院',
  '武汉大学人民医院',
  '南京鼓楼医院',
  '天津医科大学总医院',
  '首都医科大学附属北京朝阳医院',
  '杭州市中医院',
  '成都市第三人民医院',
  '保定市妇幼保健院',
];
const EN_HOSPITALS = [
  'Massachusetts General Hospital',
  "St. Mary's Medical Center",
  'Riverside Community Hospital',
  'Mercy General Hospital',
  'Lakeview Regional Medical Center',
  'Cedar Valley Hospital',
  'Northwestern Memorial Hospital',
  'Providence Health Center',
  'Sunrise Hospital',
  'Good Samaritan Hospital',
];

function zhDate(y: number, m: number, d: number, style: number): string {
  const p = (n: number) => String(n).padStart(2, '0');
  if (style === 1) return `${y}-${p(m)}-${p(d)}`;
  if (style === 2) return `${y}/${p(m)}/${p(d)}`;
  return `${y}年${m}月${d}日`;
}
/** An admission day in 2026 and the day `days` later. */
function stay2026(
  r: Rand,
  days: number,
): [{ y: number; m: number; d: number }, { y: number; m: number; d: number }] {
  const a = new Date(Date.UTC(2026, 0, 1 + r.int(0, 300)));
  const b = new Date(a.getTime() + days * 86_400_000);
  const ymd = (t: Date) => ({ y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() });
  return [ymd(a), ymd(b)];
}
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
function enDate(y: number, m: number, d: number, style: number): string {
  const p = (n: number) => String(n).padStart(2, '0');
  if (style === 1) return `${d} ${MONTHS[m - 1]} ${y}`;
  if (style === 2) return `${y}-${p(m)}-${p(d)}`;
  if (style === 3) return `${MONTHS[m - 1]!.slice(0, 3)} ${d}, ${y}`;
  return `${p(m)}/${p(d)}/${y}`;
}

// ── clinical content ──

// [name, code, value generator, unit, reference]
type Lab = [string, string, (r: Rand) => string, string, string];
const f1 = (lo: number, hi: number) => (r: Rand) => (lo + r.next() * (hi - lo)).toFixed(1);
const f2 = (lo: number, hi: number) => (r: Rand) => (lo + r.next() * (hi - lo)).toFixed(2);
const i0 = (lo: number, hi: number) => (r: Rand) => String(r.int(lo, hi));
const ZH_LABS: readonly Lab[] = [
  ['白细胞计数', 'WBC', f1(3, 12), '×10^9/L', '3.5-9.5'],
  ['中性粒细胞百分比', 'NEUT%', f1(40, 80), '%', '40-75'],
  ['红细胞计数', 'RBC', f2(3.6, 5.6), '×10^12/L', '4.3-5.8'],
  ['血红蛋白', 'HGB', i0(95, 165), 'g/L', '130-175'],
  ['血小板计数', 'PLT', i0(90, 380), '×10^9/L', '125-350'],
  ['葡萄糖', 'GLU', f1(3.8, 12.5), 'mmol/L', '3.9-6.1'],
  ['糖化血红蛋白', 'HbA1c', f1(5, 10), '%', '4.0-6.0'],
  ['肌酐', 'CREA', i0(45, 160), 'μmol/L', '57-111'],
  ['尿素', 'UREA', f1(2.5, 11), 'mmol/L', '3.1-8.0'],
  ['丙氨酸氨基转移酶', 'ALT', i0(8, 120), 'U/L', '9-50'],
  ['天门冬氨酸氨基转移酶', 'AST', i0(10, 90), 'U/L', '15-40'],
  ['总胆固醇', 'TC', f2(3, 7.5), 'mmol/L', '<5.20'],
  ['甘油三酯', 'TG', f2(0.5, 4), 'mmol/L', '<1.70'],
  ['钾', 'K', f2(3.2, 5.6), 'mmol/L', '3.5-5.3'],
  ['钠', 'Na', i0(130, 148), 'mmol/L', '137-147'],
  ['C反应蛋白', 'CRP', f1(0.5, 80), 'mg/L', '0-10'],
];
const EN_LABS: readonly Lab[] = [
  ['White blood cells', 'WBC', f1(3, 12), 'x10^3/uL', '4.0-11.0'],
  ['Hemoglobin', 'HGB', f1(9.5, 17), 'g/dL', '13.5-17.5'],
  ['Platelets', 'PLT', i0(90, 380), 'x10^3/uL', '150-400'],
  ['Glucose, fasting', 'GLU', i0(70, 220), 'mg/dL', '70-99'],
  ['Hemoglobin A1c', 'HbA1c', f1(5, 10), '%', '4.0-5.6'],
  ['Creatinine', 'CREA', f2(0.6, 2.1), 'mg/dL', '0.7-1.3'],
  ['Blood urea nitrogen', 'BUN', i0(7, 40), 'mg/dL', '7-20'],
  ['Sodium', 'Na', i0(130, 148), 'mmol/L', '136-145'],
  ['Potassium', 'K', f1(3.2, 5.6), 'mmol/L', '3.5-5.1'],
  ['Alanine aminotransferase', 'ALT', i0(8, 120), 'U/L', '7-56'],
  ['Total cholesterol', 'TC', i0(120, 290), 'mg/dL', '<200'],
  ['LDL cholesterol', 'LDL', i0(60, 190), 'mg/dL', '<100'],
  ['C-reactive protein', 'CRP', f1(0.1, 9), 'mg/dL', '<0.5'],
  ['TSH', 'TSH', f2(0.3, 6), 'mIU/L', '0.4-4.0'],
];
// [drug, dose, route/frequency]
const ZH_DRUGS: readonly [string, string, string][] = [
  ['二甲双胍片', '0.5 g', '口服 每日3次'],
  ['阿司匹林肠溶片', '100 mg', '口服 每日1次'],
  ['阿托伐他汀钙片', '20 mg', '口服 每晚1次'],
  ['氨氯地平片', '5 mg', '口服 每日1次'],
  ['头孢呋辛酯片', '0.25 g', '口服 每日2次'],
  ['奥美拉唑肠溶胶囊', '20 mg', '口服 每日1次'],
  ['门冬胰岛素注射液', '8 U', '皮下注射 三餐前'],
  ['硝苯地平控释片', '30 mg', '口服 每日1次'],
  ['氯吡格雷片', '75 mg', '口服 每日1次'],
  ['左氧氟沙星片', '0.5 g', '口服 每日1次'],
];
const EN_DRUGS: readonly [string, string, string][] = [
  ['Metformin', '500 mg', 'PO BID with meals'],
  ['Aspirin', '81 mg', 'PO daily'],
  ['Atorvastatin', '40 mg', 'PO at bedtime'],
  ['Lisinopril', '10 mg', 'PO daily'],
  ['Amoxicillin', '875 mg', 'PO q12h x 7 days'],
  ['Omeprazole', '20 mg', 'PO daily before breakfast'],
  ['Insulin glargine', '12 units', 'SC at bedtime'],
  ['Amlodipine', '5 mg', 'PO daily'],
  ['Clopidogrel', '75 mg', 'PO daily'],
  ['Levothyroxine', '50 mcg', 'PO daily'],
];
const ZH_DIAG = [
  '2型糖尿病',
  '原发性高血压 2级',
  '社区获得性肺炎',
  '冠状动脉粥样硬化性心脏病',
  '慢性胃炎',
  '高脂血症',
  '慢性肾脏病 3期',
  '急性支气管炎',
  '非酒精性脂肪性肝病',
];
const EN_DIAG = [
  'Type 2 diabetes mellitus',
  'Essential hypertension',
  'Community-acquired pneumonia',
  'Coronary artery disease',
  'Hyperlipidemia',
  'Chronic kidney disease stage 3',
  'Acute bronchitis',
  'Hypothyroidism',
];
const ZH_DEPTS = ['内分泌科', '心内科', '呼吸内科', '消化内科', '肾内科', '普通外科', '神经内科'];
const EN_DEPTS = [
  'Endocrinology',
  'Cardiology',
  'Pulmonology',
  'Gastroenterology',
  'Nephrology',
  'General Surgery',
  'Internal Medicine',
];

// ── layout ──

/** an identifier, a clinical value, or a date/time the default policy keeps (visit, sampling, admission) */
type SegKind = IdKind | 'clinical' | 'date';
export interface Seg {
  t: string;
  k?: SegKind;
}
interface TextEl {
  segs: Seg[];
  x: number;
  y: number;
  size: number;
  family: string;
  bold?: boolean;
}

const plain = (t: string): Seg => ({ t });
const id = (k: IdKind, t: string): Seg => ({ t, k });
const cv = (t: string): Seg => ({ t, k: 'clinical' });
const dt = (t: string): Seg => ({ t, k: 'date' });

/** Estimated advance of a string (for layout only; the truth is measured). */
function advance(s: string, size: number): number {
  let w = 0;
  for (const c of s) {
    if (/[\p{Script=Han}\u3000-\u303f\uff00-\uffef“”]/u.test(c)) w += size;
    else if (c === ' ') w += 0.32 * size;
    else if (/[A-Z%@mwMW]/.test(c)) w += 0.74 * size;
    else w += 0.62 * size;
  }
  return w;
}

class Page {
  els: TextEl[] = [];
  rules: { x1: number; y1: number; x2: number; y2: number; w: number }[] = [];
  y: number;
  constructor(
    readonly family: string,
    readonly size: number,
    readonly margin = 90,
  ) {
    this.y = 110;
  }
  get right(): number {
    return PAGE_WIDTH - this.margin;
  }
  /** one baseline with elements at the given x offsets (from the margin) */
  row(
    cells: [number, Seg[]][],
    opts: { size?: number; bold?: boolean; family?: string; gap?: number } = {},
  ): void {
    const size = opts.size ?? this.size;
    this.y += size * (opts.gap ?? 1.75);
    for (const [dx, segs] of cells)
      this.els.push({
        segs,
        x: this.margin + dx,
        y: Math.round(this.y),
        size,
        family: opts.family ?? this.family,
        bold: opts.bold,
      });
  }
  centered(segs: Seg[], opts: { size: number; bold?: boolean; family?: string; gap?: number }): void {
    const w = advance(segs.map((s) => s.t).join(''), opts.size);
    this.y += opts.size * (opts.gap ?? 1.6);
    this.els.push({
      segs,
      x: Math.round((PAGE_WIDTH - w) / 2),
      y: Math.round(this.y),
      size: opts.size,
      family: opts.family ?? this.family,
      bold: opts.bold,
    });
  }
  rule(w = 2): void {
    this.y += this.size * 0.7;
    this.rules.push({ x1: this.margin, y1: Math.round(this.y), x2: this.right, y2: Math.round(this.y), w });
  }
  space(f = 0.5): void {
    this.y += this.size * f;
  }
  /** a paragraph wrapped at the right margin; identifiers and clinical values are never split */
  para(segs: Seg[], opts: { indent?: number; zh: boolean; size?: number }): void {
    const size = opts.size ?? this.size;
    const units: Seg[] = [];
    for (const s of segs) {
      if (s.k) units.push(s);
      else if (opts.zh) for (const c of Array.from(s.t)) units.push(plain(c));
      else for (const w of s.t.split(/(?<= )/)) if (w) units.push(plain(w));
    }
    const width = this.right - this.margin - (opts.indent ?? 0);
    let line: Seg[] = [];
    let used = 0;
    const flush = () => {
      if (!line.length) return;
      const merged: Seg[] = [];
      for (const u of line) {
        const last = merged.at(-1);
        if (last && !last.k && !u.k) last.t += u.t;
        else merged.push({ ...u });
      }
      this.row([[opts.indent ?? 0, merged]], { size });
      line = [];
      used = 0;
    };
    for (const u of units) {
      const w = advance(u.t, size);
      // closing punctuation never starts a line (it hangs in the margin instead)
      if (used + w > width && line.length && !/^[，。；：、）”,.;:)]$/.test(u.t)) flush();
      if (!line.length && !u.k && u.t === ' ') continue;
      line.push(u);
      used += w;
    }
    flush();
  }
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A text element as SVG; with `only` = a segment index, every other segment is transparent (same advances). */
function textSvg(el: TextEl, ink: string, dy = 0, only?: number): string {
  const attrs = `x="${el.x}" y="${el.y + dy}" font-size="${el.size}" font-family="${el.family}"${el.bold ? ' font-weight="bold"' : ''} fill="${ink}" xml:space="preserve"`;
  const spans = el.segs
    .map((s, i) => `<tspan${only !== undefined && i !== only ? ' fill-opacity="0"' : ''}>${esc(s.t)}</tspan>`)
    .join('');
  return `<text ${attrs}>${spans}</text>`;
}

/** The ink box of segment `seg` of `el`, drawn alone in a band of the page, black on white (sharp trim). */
async function measure(el: TextEl, seg: number): Promise<Rect | undefined> {
  const top = Math.max(0, Math.floor(el.y - el.size * 1.6));
  const height = Math.ceil(el.size * 2.4);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${textSvg(el, '#000', -top, seg)}</svg>`;
  try {
    const { info } = await sharp(Buffer.from(svg))
      .flatten({ background: '#fff' })
      .trim({ background: '#fff', threshold: 60 })
      .toBuffer({ resolveWithObject: true });
    const box = {
      x: -(info.trimOffsetLeft ?? 0),
      y: top - (info.trimOffsetTop ?? 0),
      width: info.width,
      height: info.height,
    };
    // trim leaves a blank image as it is: no ink
    if (box.width === PAGE_WIDTH && box.height === height) return undefined;
    return box;
  } catch {
    return undefined;
  }
}

function rotatePoint(p: Point, deg: number): Point {
  const a = (deg * Math.PI) / 180;
  const cx = PAGE_WIDTH / 2;
  const cy = PAGE_HEIGHT / 2;
  const dx = p.x - cx;
  const dy = p.y - cy;
  // SVG rotate(a): clockwise on screen (y down)
  return { x: cx + dx * Math.cos(a) - dy * Math.sin(a), y: cy + dx * Math.sin(a) + dy * Math.cos(a) };
}

function toTruth(r: Rect, deg: number): Pick<TruthItem, 'polygon' | 'box'> {
  const corners: [Point, Point, Point, Point] = [
    { x: r.x, y: r.y },
    { x: r.x + r.width, y: r.y },
    { x: r.x + r.width, y: r.y + r.height },
    { x: r.x, y: r.y + r.height },
  ];
  const polygon = (deg ? corners.map((p) => rotatePoint(p, deg)) : corners) as [Point, Point, Point, Point];
  const xs = polygon.map((p) => p.x);
  const ys = polygon.map((p) => p.y);
  const x = Math.floor(Math.min(...xs));
  const y = Math.floor(Math.min(...ys));
  return {
    polygon,
    box: { x, y, width: Math.ceil(Math.max(...xs)) - x, height: Math.ceil(Math.max(...ys)) - y },
  };
}

// ── documents ──

interface Patient {
  zh: boolean;
  name: string;
  /** how the name is written in running text (surname for English: "Mr. Smith") */
  short: string;
  initials: string;
  sex: 'M' | 'F';
  birth: { y: number; m: number; d: number };
  age: number;
  idCard: string;
  mobile: string;
  address: string;
  email: string;
  mrn: string;
  inpatientNo: string;
  outpatientNo: string;
  contact: string;
  contactPhone: string;
  hospital: string;
  hospitalPhone: string;
  doctors: string[];
  dept: string;
}

function patient(r: Rand, zh: boolean): Patient {
  const birth = birthOf(r);
  const age = 2026 - birth.y;
  const seqDigit = r.int(0, 9);
  const id = idCard(r.pick(ID_AREAS), birth, `${r.digits(2)}${seqDigit}`);
  const sex = seqDigit % 2 ? 'M' : 'F';
  const year = r.int(2019, 2025);
  const docs = (n: number) => Array.from({ length: n }, () => (zh ? zhName(r).name : enName(r).full));
  if (zh) {
    const n = zhName(r);
    return {
      zh,
      name: n.name,
      short: n.name,
      initials: n.initials,
      sex,
      birth,
      age,
      idCard: id,
      mobile: mobile(r),
      address: addressZh(r),
      email: emailOf(r, n.initials, true),
      mrn: r.pick([r.digits(10), `${year}${r.digits(6)}`, `BA${year}${r.digits(5)}`]),
      inpatientNo: r.pick([`ZY${year}${r.digits(6)}`, `${year}${r.digits(5)}`, r.digits(8)]),
      outpatientNo: r.pick([`MZ${year}${r.digits(7)}`, r.digits(12), `${year}${r.digits(8)}`]),
      contact: zhName(r).name,
      contactPhone: mobile(r),
      hospital: r.pick(ZH_HOSPITALS),
      hospitalPhone: landlineZh(r),
      doctors: docs(4),
      dept: r.pick(ZH_DEPTS),
    };
  }
  const n = enName(r);
  return {
    zh,
    name: n.full,
    short: n.last,
    initials: n.initials,
    sex,
    birth,
    age,
    idCard: id,
    mobile: phoneUs(r),
    address: addressEn(r),
    email: emailOf(r, `${n.first}${r.chance(0.5) ? '.' : ''}${n.last}`, false),
    mrn: r.pick([r.digits(7), r.digits(8), `M${r.digits(7)}`]),
    inpatientNo: r.pick([`IP${year}${r.digits(5)}`, r.digits(9), `A-${r.digits(7)}`]),
    outpatientNo: r.pick([`OP${r.digits(7)}`, `${year}${r.digits(6)}`]),
    contact: enName(r).full,
    contactPhone: phoneUs(r),
    hospital: r.pick(EN_HOSPITALS),
    hospitalPhone: phoneUs(r),
    doctors: docs(4),
    dept: r.pick(EN_DEPTS),
  };
}

/** Spaces in an ID number as a typist or a form leaves them, now and then. */
function spacedId(r: Rand, v: string): string {
  return r.chance(0.2) ? `${v.slice(0, 6)} ${v.slice(6, 14)} ${v.slice(14)}` : v;
}

function header(pg: Page, p: Patient, title: string, r: Rand, serif: string): void {
  const upper = !p.zh && r.chance(0.25);
  pg.centered([id('hospital', upper ? p.hospital.toUpperCase() : p.hospital)], {
    size: 40,
    bold: true,
    family: serif,
    gap: 0,
  });
  pg.centered([plain(title)], { size: 32, bold: true, family: serif });
  pg.row(
    [
      [0, [plain(p.zh ? `科室：${p.dept}` : `Department of ${p.dept}`)]],
      [620, [plain(p.zh ? '电话：' : 'Tel: '), id('landline', p.hospitalPhone)]],
    ],
    { size: 20, gap: 2.2 },
  );
  pg.rule(3);
}

function zhLab(pg: Page, p: Patient, r: Rand, serif: string): void {
  header(pg, p, '检 验 报 告 单', r, serif);
  const sexZh = p.sex === 'M' ? '男' : '女';
  pg.row([
    [0, [plain('姓名：'), id('name', p.name)]],
    [330, [plain(`性别：${sexZh}`)]],
    [560, [plain(`年龄：${p.age}岁`)]],
    [800, [plain('病案号：'), id('medicalRecordNo', p.mrn)]],
  ]);
  pg.row([
    [0, [plain(`科室：${p.dept}`)]],
    [330, [plain(`床号：${r.int(1, 60)}`)]],
    [560, [plain('标本：血清')]],
    [800, [plain('送检医生：'), id('doctor', p.doctors[0]!)]],
  ]);
  pg.row([
    [0, [plain('门诊/住院号：'), id('inpatientNo', p.inpatientNo)]],
    [560, [plain('临床诊断：'), cv(r.pick(ZH_DIAG))]],
  ]);
  pg.rule();
  pg.row(
    [
      [0, [plain('检验项目')]],
      [380, [plain('结果')]],
      [560, [plain('单位')]],
      [800, [plain('参考区间')]],
    ],
    { bold: true },
  );
  const labs = [...ZH_LABS].sort(() => r.next() - 0.5).slice(0, r.int(10, 14));
  for (const [name, code, val, unit, ref] of labs) {
    const v = val(r);
    const flag = r.chance(0.2) ? (r.chance(0.5) ? ' ↑' : ' ↓') : '';
    pg.row(
      [
        [0, [plain(`${name} ${code}`)]],
        [380, [cv(v), plain(flag)]],
        [560, [cv(unit)]],
        [800, [plain(ref)]],
      ],
      { gap: 1.6 },
    );
  }
  pg.rule();
  const t = { y: 2026, m: r.int(1, 10), d: r.int(1, 28) };
  pg.row([
    [0, [plain('采样时间：'), dt(`${zhDate(t.y, t.m, t.d, 1)} 08:${r.int(10, 59)}`)]],
    [560, [plain('报告时间：'), dt(`${zhDate(t.y, t.m, t.d, 1)} 14:${r.int(10, 59)}`)]],
  ]);
  pg.row([
    [0, [plain('检验者：'), id('doctor', p.doctors[1]!)]],
    [330, [plain('审核者：'), id('doctor', p.doctors[2]!)]],
    [660, [plain('患者电话：'), id('phone', p.mobile)]],
  ]);
  pg.row([[0, [plain('本报告仅对所检标本负责。如有疑问请致电检验科：'), id('landline', landlineZh(r))]]], {
    size: 18,
  });
}

function zhDischarge(pg: Page, p: Patient, r: Rand, serif: string): void {
  header(pg, p, '出 院 记 录', r, serif);
  const sexZh = p.sex === 'M' ? '男' : '女';
  pg.row([
    [0, [plain('姓名：'), id('name', p.name)]],
    [330, [plain(`性别：${sexZh}`)]],
    [560, [plain(`年龄：${p.age}岁`)]],
    [800, [plain('住院号：'), id('inpatientNo', p.inpatientNo)]],
  ]);
  pg.row([
    [0, [plain('身份证号：'), id('idCard', spacedId(r, p.idCard))]],
    [560, [plain('出生日期：'), id('birthDate', zhDate(p.birth.y, p.birth.m, p.birth.d, r.int(0, 1)))]],
  ]);
  pg.row([[0, [plain('现住址：'), id('address', p.address)]]]);
  pg.row([
    [0, [plain('联系电话：'), id('phone', p.mobile)]],
    [
      440,
      [plain('联系人：'), id('name', p.contact), plain(`（${r.pick(['配偶', '女儿', '儿子', '母亲'])}）`)],
    ],
    [830, [plain('电话：'), id('phone', p.contactPhone)]],
  ]);
  const stay = r.int(5, 14);
  const [a, b] = stay2026(r, stay);
  pg.row([
    [0, [plain('入院日期：'), dt(zhDate(a.y, a.m, a.d, 0))]],
    [440, [plain('出院日期：'), dt(zhDate(b.y, b.m, b.d, 0))]],
    [830, [plain(`住院天数：${stay}天`)]],
  ]);
  pg.rule();
  const dx = r.pick(ZH_DIAG);
  pg.row([[0, [plain('入院诊断：'), cv(dx)]]]);
  pg.row([[0, [plain('出院诊断：'), cv(dx), plain('；'), cv(r.pick(ZH_DIAG.filter((x) => x !== dx)))]]]);
  pg.row([[0, [plain('入院情况：')]]], { bold: true });
  const [lab1, lab2] = [r.pick(ZH_LABS), r.pick(ZH_LABS)];
  pg.para(
    [
      plain('患者'),
      id('name', p.short),
      plain(
        `，${sexZh}，${p.age}岁，因“多饮、多尿伴体重下降${r.int(2, 11)}月”入院。查体：体温36.${r.int(2, 9)}℃，血压`,
      ),
      cv(`${r.int(118, 168)}/${r.int(70, 98)} mmHg`),
      plain('。辅助检查：'),
      plain(lab1[0]),
      cv(`${lab1[2](r)} ${lab1[3]}`),
      plain('，'),
      plain(lab2[0]),
      cv(`${lab2[2](r)} ${lab2[3]}`),
      plain(`。既往曾于`),
      id('hospital', r.pick(ZH_HOSPITALS)),
      plain('就诊。'),
    ],
    { zh: true, indent: 44 },
  );
  pg.row([[0, [plain('诊疗经过：')]]], { bold: true });
  const [d1, d2] = [r.pick(ZH_DRUGS), r.pick(ZH_DRUGS)];
  pg.para(
    [
      plain('入院后完善相关检查，予'),
      cv(`${d1[0]} ${d1[1]}`),
      plain(` ${d1[2]}，`),
      cv(`${d2[0]} ${d2[1]}`),
      plain(` ${d2[2]}治疗，患者症状好转。经`),
      id('doctor', p.doctors[1]!),
      plain('主任医师查房后同意出院。'),
    ],
    { zh: true, indent: 44 },
  );
  pg.row([[0, [plain('出院情况：')]]], { bold: true });
  const lab3 = r.pick(ZH_LABS);
  pg.para(
    [
      plain('患者一般情况可，无发热，饮食睡眠可。复查'),
      plain(lab3[0]),
      cv(`${lab3[2](r)} ${lab3[3]}`),
      plain('，较前改善。患者及家属'),
      id('name', p.contact),
      plain('对病情知情，同意出院。'),
    ],
    { zh: true, indent: 44 },
  );
  pg.row([[0, [plain('出院医嘱：')]]], { bold: true });
  for (const [i, d] of [r.pick(ZH_DRUGS), r.pick(ZH_DRUGS), r.pick(ZH_DRUGS)].entries())
    pg.row([[44, [plain(`${i + 1}. `), cv(d[0]), plain(' '), cv(d[1]), plain(` ${d[2]}`)]]]);
  pg.row([[44, [plain(`4. 定期复查血糖、肝肾功能，${r.int(2, 4)}周后门诊随访。`)]]]);
  pg.space(1);
  pg.row([
    [560, [plain('主治医师：'), id('doctor', p.doctors[0]!)]],
    [880, [plain('住院医师：'), id('doctor', p.doctors[2]!)]],
  ]);
}

function zhOutpatient(pg: Page, p: Patient, r: Rand, serif: string): void {
  header(pg, p, '门 诊 病 历', r, serif);
  const sexZh = p.sex === 'M' ? '男' : '女';
  pg.row([
    [0, [plain('姓名：'), id('name', p.name)]],
    [330, [plain(`性别：${sexZh}`)]],
    [560, [plain(`年龄：${p.age}岁`)]],
    [800, [plain('门诊号：'), id('outpatientNo', p.outpatientNo)]],
  ]);
  pg.row([
    [0, [plain('出生日期：'), id('birthDate', zhDate(p.birth.y, p.birth.m, p.birth.d, r.int(0, 2)))]],
    [440, [plain('手机：'), id('phone', p.mobile)]],
    [800, [plain('病历号：'), id('medicalRecordNo', p.mrn)]],
  ]);
  pg.row([[0, [plain('家庭住址：'), id('address', p.address)]]]);
  pg.row([
    [0, [plain('电子邮箱：'), id('email', p.email)]],
    [
      560,
      [
        plain('就诊日期：'),
        dt(`2026-${String(r.int(1, 10)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}`),
      ],
    ],
    [900, [plain(`科别：${p.dept}`)]],
  ]);
  pg.rule();
  pg.row([[0, [plain(`主诉：反复头晕${r.int(1, 9)}年，加重${r.int(2, 14)}天。`)]]]);
  pg.row([[0, [plain('现病史：')]]], { bold: true });
  pg.para(
    [
      plain(`患者${r.int(1, 9)}年前无明显诱因出现头晕，测血压最高`),
      cv(`${r.int(160, 190)}/${r.int(95, 110)} mmHg`),
      plain('，长期服用'),
      cv(r.pick(ZH_DRUGS)[0]),
      plain('治疗。近期自测血压控制欠佳，家属'),
      id('name', p.contact),
      plain('陪同就诊。否认胸痛、黑矇。'),
    ],
    { zh: true, indent: 44 },
  );
  pg.row([
    [
      0,
      [
        plain(
          `既往史：${r.pick(['否认肝炎、结核病史', '糖尿病史5年', '否认手术外伤史'])}。过敏史：${r.pick(['否认', '青霉素过敏', '磺胺类过敏'])}。`,
        ),
      ],
    ],
  ]);
  pg.row([
    [
      0,
      [
        plain(`查体：血压`),
        cv(`${r.int(140, 176)}/${r.int(86, 104)} mmHg`),
        plain('，心率'),
        cv(`${r.int(60, 100)}次/分`),
        plain('，双肺呼吸音清。'),
      ],
    ],
  ]);
  const lab = r.pick(ZH_LABS);
  pg.row([[0, [plain('辅助检查：'), plain(lab[0]), plain(' '), cv(`${lab[2](r)} ${lab[3]}`)]]]);
  pg.row([[0, [plain('诊断：'), cv(r.pick(ZH_DIAG)), plain('；'), cv(r.pick(ZH_DIAG))]]]);
  pg.row([[0, [plain('处理：')]]], { bold: true });
  for (const d of [r.pick(ZH_DRUGS), r.pick(ZH_DRUGS)])
    pg.row([[44, [cv(d[0]), plain(' '), cv(d[1]), plain(` ${d[2]}`)]]]);
  pg.row([[44, [plain('低盐低脂饮食，监测血压，不适随诊。')]]]);
  pg.space(1);
  pg.row([[640, [plain('医师签名：'), id('doctor', p.doctors[0]!)]]]);
}

function zhPrescription(pg: Page, p: Patient, r: Rand, serif: string): void {
  header(pg, p, '处 方 笺', r, serif);
  const sexZh = p.sex === 'M' ? '男' : '女';
  pg.row([
    [0, [plain('费别：'), plain(r.pick(['医保', '自费', '公费']))]],
    [330, [plain('门诊号：'), id('outpatientNo', p.outpatientNo)]],
    [800, [plain(`科别：${p.dept}`)]],
  ]);
  pg.row([
    [0, [plain('姓名：'), id('name', p.name)]],
    [330, [plain(`性别：${sexZh}`)]],
    [560, [plain(`年龄：${p.age}岁`)]],
    [800, [plain('开具日期：'), dt(`2026-0${r.int(1, 9)}-${r.int(10, 28)}`)]],
  ]);
  pg.row([
    [0, [plain('身份证号：'), id('idCard', spacedId(r, p.idCard))]],
    [640, [plain('电话：'), id('phone', p.mobile)]],
  ]);
  pg.row([[0, [plain('住址：'), id('address', p.address)]]]);
  pg.row([[0, [plain('临床诊断：'), cv(r.pick(ZH_DIAG))]]]);
  pg.rule();
  pg.row([[0, [plain('Rp.')]]], { size: 34, bold: true });
  const drugs = [...ZH_DRUGS].sort(() => r.next() - 0.5).slice(0, r.int(3, 5));
  for (const d of drugs) {
    pg.row([
      [44, [cv(d[0])]],
      [520, [cv(d[1])]],
      [700, [plain(`× ${r.int(1, 4)}盒`)]],
    ]);
    pg.row([[88, [plain(`用法：${d[2]}`)]]], { size: 20, gap: 1.5 });
  }
  pg.space(2);
  pg.rule();
  pg.row([
    [0, [plain('医师：'), id('doctor', p.doctors[0]!)]],
    [330, [plain('审核药师：'), id('doctor', p.doctors[1]!)]],
    [700, [plain(`金额：¥${r.int(20, 480)}.${r.int(10, 99)}`)]],
  ]);
  pg.row([
    [0, [plain('调配药师：'), id('doctor', p.doctors[2]!)]],
    [440, [plain('核对：'), id('doctor', p.doctors[3]!)]],
  ]);
  pg.row([[0, [plain('注：处方当日有效。取药时请核对姓名与药品。')]]], { size: 18 });
}

function enHeader(pg: Page, p: Patient, title: string, r: Rand, serif: string): void {
  header(pg, p, title, r, serif);
}

function enDemographics(
  pg: Page,
  p: Patient,
  r: Rand,
  which: ('mrn' | 'ip' | 'op' | 'id' | 'addr' | 'email' | 'phone')[],
): void {
  pg.row([
    [0, [plain('Patient Name: '), id('name', p.name)]],
    [560, [plain('DOB: '), id('birthDate', enDate(p.birth.y, p.birth.m, p.birth.d, r.int(0, 3)))]],
    [880, [plain(`Sex: ${p.sex}   Age: ${p.age}`)]],
  ]);
  const cells: [number, Seg[]][] = [];
  if (which.includes('mrn')) cells.push([0, [plain('MRN: '), id('medicalRecordNo', p.mrn)]]);
  if (which.includes('ip'))
    cells.push([cells.length ? 360 : 0, [plain('Inpatient No.: '), id('inpatientNo', p.inpatientNo)]]);
  if (which.includes('op'))
    cells.push([cells.length ? 360 : 0, [plain('Outpatient No.: '), id('outpatientNo', p.outpatientNo)]]);
  if (cells.length) {
    cells.push([760, [plain(`Dept: ${p.dept}`)]]);
    pg.row(cells);
  }
  if (which.includes('addr')) pg.row([[0, [plain('Address: '), id('address', p.address)]]]);
  const contact: [number, Seg[]][] = [];
  if (which.includes('phone')) contact.push([0, [plain('Phone: '), id('phone', p.mobile)]]);
  if (which.includes('email'))
    contact.push([contact.length ? 440 : 0, [plain('Email: '), id('email', p.email)]]);
  if (contact.length) pg.row(contact);
  if (which.includes('id'))
    pg.row([
      [0, [plain('ID Card No.: '), id('idCard', spacedId(r, p.idCard))]],
      [640, [plain('Insurance: '), plain(r.pick(['Medicare', 'BlueCross PPO', 'Aetna HMO', 'Self-pay']))]],
    ]);
}

function enLab(pg: Page, p: Patient, r: Rand, serif: string): void {
  enHeader(pg, p, 'Clinical Laboratory Report', r, serif);
  enDemographics(pg, p, r, ['mrn', r.chance(0.5) ? 'ip' : 'op', 'phone']);
  pg.row([
    [0, [plain('Ordering Physician: '), plain('Dr. '), id('doctor', p.doctors[0]!)]],
    [640, [plain('Specimen: Serum   Diagnosis: '), cv(r.pick(EN_DIAG).split(' ')[0]!)]],
  ]);
  pg.rule();
  pg.row(
    [
      [0, [plain('Test')]],
      [420, [plain('Result')]],
      [600, [plain('Units')]],
      [820, [plain('Reference')]],
    ],
    { bold: true },
  );
  const labs = [...EN_LABS].sort(() => r.next() - 0.5).slice(0, r.int(10, 13));
  for (const [name, , val, unit, ref] of labs) {
    const flag = r.chance(0.2) ? (r.chance(0.5) ? ' H' : ' L') : '';
    pg.row(
      [
        [0, [plain(name)]],
        [420, [cv(val(r)), plain(flag)]],
        [600, [cv(unit)]],
        [820, [plain(ref)]],
      ],
      { gap: 1.6 },
    );
  }
  pg.rule();
  const t = { y: 2026, m: r.int(1, 10), d: r.int(1, 28) };
  pg.row([
    [0, [plain('Collected: '), dt(`${enDate(t.y, t.m, t.d, 2)} 07:${r.int(10, 59)}`)]],
    [560, [plain('Reported: '), dt(`${enDate(t.y, t.m, t.d, 2)} 13:${r.int(10, 59)}`)]],
  ]);
  pg.row([
    [0, [plain('Verified by: '), id('doctor', p.doctors[1]!), plain(', MT(ASCP)')]],
    [640, [plain('Pathologist: '), id('doctor', p.doctors[2]!), plain(', MD')]],
  ]);
  pg.row([[0, [plain('Questions? Call the laboratory at '), id('landline', phoneUs(r))]]], { size: 18 });
}

function enDischarge(pg: Page, p: Patient, r: Rand, serif: string): void {
  enHeader(pg, p, 'Discharge Summary', r, serif);
  enDemographics(pg, p, r, ['mrn', 'ip', 'addr', 'phone', ...(r.chance(0.5) ? (['id'] as const) : [])]);
  pg.row([
    [
      0,
      [
        plain('Emergency Contact: '),
        id('name', p.contact),
        plain(` (${r.pick(['wife', 'husband', 'daughter', 'son'])}) `),
        id('phone', p.contactPhone),
      ],
    ],
  ]);
  const [a, b] = stay2026(r, r.int(3, 9));
  pg.row([
    [0, [plain('Admission Date: '), dt(enDate(a.y, a.m, a.d, 0))]],
    [560, [plain('Discharge Date: '), dt(enDate(b.y, b.m, b.d, 0))]],
  ]);
  pg.row([[0, [plain('Attending Physician: '), plain('Dr. '), id('doctor', p.doctors[0]!)]]]);
  pg.rule();
  const dx = r.pick(EN_DIAG);
  pg.row([[0, [plain('Principal Diagnosis: '), cv(dx)]]]);
  const dx2 = r.pick(EN_DIAG.filter((x) => x !== dx));
  pg.row([
    [
      0,
      [
        plain('Secondary Diagnoses: '),
        cv(dx2),
        plain('; '),
        cv(r.pick(EN_DIAG.filter((x) => x !== dx && x !== dx2))),
      ],
    ],
  ]);
  pg.row([[0, [plain('Hospital Course:')]]], { bold: true });
  const [l1, l2] = [r.pick(EN_LABS), r.pick(EN_LABS)];
  const title = p.sex === 'M' ? 'Mr.' : 'Ms.';
  pg.para(
    [
      plain(`${title} `),
      id('name', p.short),
      plain(
        ` is a ${p.age}-year-old patient admitted with ${dx.toLowerCase()}. On admission blood pressure was `,
      ),
      cv(`${r.int(118, 168)}/${r.int(70, 98)} mmHg`),
      plain(`, ${l1[0].toLowerCase()} `),
      cv(`${l1[2](r)} ${l1[3]}`),
      plain(` and ${l2[0].toLowerCase()} `),
      cv(`${l2[2](r)} ${l2[3]}`),
      plain(`. ${p.sex === 'M' ? 'He' : 'She'} was previously followed at `),
      id('hospital', r.pick(EN_HOSPITALS)),
      plain('. Symptoms improved with treatment and the patient was discharged home in stable condition.'),
    ],
    { zh: false, indent: 0 },
  );
  pg.row([[0, [plain('Condition at Discharge:')]]], { bold: true });
  const l3 = r.pick(EN_LABS);
  pg.para(
    [
      plain(`Stable, afebrile, tolerating diet. Repeat ${l3[0].toLowerCase()} `),
      cv(`${l3[2](r)} ${l3[3]}`),
      plain('. Discharge instructions were reviewed with the patient and '),
      id('name', p.contact),
      plain('.'),
    ],
    { zh: false },
  );
  pg.row([[0, [plain('Discharge Medications:')]]], { bold: true });
  for (const d of [r.pick(EN_DRUGS), r.pick(EN_DRUGS), r.pick(EN_DRUGS)])
    pg.row([[44, [plain('- '), cv(d[0]), plain(' '), cv(d[1]), plain(` ${d[2]}`)]]]);
  pg.row([
    [
      0,
      [
        plain(`Follow-up: ${p.dept} clinic in ${r.int(1, 4)} weeks with `),
        plain('Dr. '),
        id('doctor', p.doctors[3]!),
        plain('.'),
      ],
    ],
  ]);
  pg.space(1);
  pg.row([[0, [plain('Electronically signed by: '), id('doctor', p.doctors[1]!), plain(', MD')]]]);
}

function enOutpatient(pg: Page, p: Patient, r: Rand, serif: string): void {
  enHeader(pg, p, 'Outpatient Clinic Note', r, serif);
  enDemographics(pg, p, r, ['op', 'mrn', 'addr', 'email', 'phone']);
  pg.row([
    [0, [plain('Visit Date: '), dt(enDate(2026, r.int(1, 10), r.int(1, 28), r.int(0, 3)))]],
    [560, [plain('Provider: '), id('doctor', p.doctors[0]!), plain(', MD')]],
  ]);
  pg.rule();
  pg.row([[0, [plain(`Chief Complaint: dizziness for ${r.int(2, 14)} days.`)]]]);
  pg.row([[0, [plain('History of Present Illness:')]]], { bold: true });
  pg.para(
    [
      plain(`Patient is a ${p.age}-year-old with a history of hypertension treated with `),
      cv(r.pick(EN_DRUGS)[0]),
      plain('. Home readings up to '),
      cv(`${r.int(160, 190)}/${r.int(95, 110)} mmHg`),
      plain('. Accompanied by '),
      id('name', p.contact),
      plain('. Denies chest pain or syncope.'),
    ],
    { zh: false },
  );
  pg.row([
    [
      0,
      [
        plain(
          `Past Medical History: ${r.pick(['hypertension, hyperlipidemia', 'type 2 diabetes', 'none significant'])}. Allergies: ${r.pick(['NKDA', 'penicillin', 'sulfa drugs'])}.`,
        ),
      ],
    ],
  ]);
  pg.row([
    [
      0,
      [
        plain('Vitals: BP '),
        cv(`${r.int(140, 176)}/${r.int(86, 104)} mmHg`),
        plain(', HR '),
        cv(`${r.int(60, 100)} bpm`),
        plain(', SpO2 '),
        cv(`${r.int(94, 99)}%`),
      ],
    ],
  ]);
  const lab = r.pick(EN_LABS);
  pg.row([[0, [plain(`Labs: ${lab[0]} `), cv(`${lab[2](r)} ${lab[3]}`)]]]);
  pg.row([[0, [plain('Assessment: '), cv(r.pick(EN_DIAG)), plain('; '), cv(r.pick(EN_DIAG))]]]);
  pg.row([[0, [plain('Plan:')]]], { bold: true });
  for (const d of [r.pick(EN_DRUGS), r.pick(EN_DRUGS)])
    pg.row([[44, [cv(d[0]), plain(' '), cv(d[1]), plain(` ${d[2]}`)]]]);
  pg.row([[44, [plain('Low-salt diet, home blood pressure log, return in 4 weeks.')]]]);
  pg.space(1);
  pg.row([[560, [plain('Signed: '), id('doctor', p.doctors[0]!), plain(', MD')]]]);
}

function enPrescription(pg: Page, p: Patient, r: Rand, serif: string): void {
  enHeader(pg, p, 'Prescription', r, serif);
  enDemographics(pg, p, r, ['op', 'addr', 'phone']);
  pg.row([
    [0, [plain('Diagnosis: '), cv(r.pick(EN_DIAG))]],
    [640, [plain('Date: '), dt(enDate(2026, r.int(1, 10), r.int(1, 28), 0))]],
  ]);
  pg.rule();
  pg.row([[0, [plain('Rx')]]], { size: 34, bold: true });
  const drugs = [...EN_DRUGS].sort(() => r.next() - 0.5).slice(0, r.int(3, 5));
  for (const d of drugs) {
    pg.row([
      [44, [cv(d[0])]],
      [480, [cv(d[1])]],
      [700, [plain(`Qty: ${r.int(14, 90)}   Refills: ${r.int(0, 3)}`)]],
    ]);
    pg.row([[88, [plain(`Sig: ${d[2]}`)]]], { size: 20, gap: 1.5 });
  }
  pg.space(2);
  pg.rule();
  pg.row([
    [0, [plain('Prescriber: '), plain('Dr. '), id('doctor', p.doctors[0]!)]],
    [
      560,
      [
        plain(
          `DEA: ${String.fromCharCode(65 + r.int(0, 25))}${String.fromCharCode(65 + r.int(0, 25))}${r.digits(7)}`,
        ),
      ],
    ],
  ]);
  pg.row([
    [0, [plain('Pharmacist: '), id('doctor', p.doctors[1]!)]],
    [560, [plain('Pharmacy phone: '), id('landline', p.hospitalPhone)]],
  ]);
}

const DOCS: Record<DocType, { zh: typeof zhLab; en: typeof enLab }> = {
  lab: { zh: zhLab, en: enLab },
  discharge: { zh: zhDischarge, en: enDischarge },
  outpatient: { zh: zhOutpatient, en: enOutpatient },
  prescription: { zh: zhPrescription, en: enPrescription },
};
const DOC_TYPES: readonly DocType[] = ['lab', 'discharge', 'outpatient', 'prescription'];

/** Page i of the set: language, document type and degradation follow from i, content from (seed, i). */
export async function generatePage(index: number, seed = 12): Promise<GeneratedPage> {
  const r = new Rand(rng(seed * 100_003 + index * 7919 + 1));
  const lang = index % 2 === 0 ? 'zh' : 'en';
  const doc = DOC_TYPES[Math.floor(index / 2) % 4]!;
  const degradation: Degradation = {};
  if (index % 3 === 2) {
    const variant = Math.floor(index / 3) % 4;
    const angle = (1 + r.next() * 2) * (r.chance(0.5) ? 1 : -1);
    if (variant === 0 || variant === 3) degradation.rotate = Math.round(angle * 10) / 10;
    if (variant === 1 || variant === 3) degradation.noise = variant === 1 ? 22 : 14;
    if (variant === 2) degradation.lowContrast = true;
  }
  const zh = lang === 'zh';
  const family = zh ? r.pick(['Noto Sans CJK SC', 'Noto Serif CJK SC']) : 'DejaVu Sans';
  const serif = zh ? 'Noto Serif CJK SC' : r.pick(['DejaVu Sans', 'Noto Serif CJK SC']);
  const size = r.pick([22, 23, 24]);
  const p = patient(r, zh);
  const pg = new Page(family, size);
  DOCS[doc][lang](pg, p, r, serif);
  if (pg.y > PAGE_HEIGHT - 60) throw new Error(`page ${index} overflows (${Math.round(pg.y)} px)`);

  const ink = degradation.lowContrast ? '#8d8d8d' : '#111';
  const paper = degradation.lowContrast ? '#e4e0d6' : '#fff';
  const rot = degradation.rotate ?? 0;
  const body =
    pg.rules
      .map(
        (l) =>
          `<line x1="${l.x1}" y1="${l.y1}" x2="${l.x2}" y2="${l.y2}" stroke="${ink}" stroke-width="${l.w}"/>`,
      )
      .join('') + pg.els.map((el) => textSvg(el, ink)).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH}" height="${PAGE_HEIGHT}"><rect width="100%" height="100%" fill="${paper}"/>${
    rot ? `<g transform="rotate(${rot} ${PAGE_WIDTH / 2} ${PAGE_HEIGHT / 2})">${body}</g>` : body
  }</svg>`;
  const img = sharp(Buffer.from(svg)).flatten({ background: paper });
  let format: 'png' | 'jpeg' = 'png';
  let bytes: Buffer;
  if (degradation.noise) {
    const { data, info } = await img.blur(0.7).raw().toBuffer({ resolveWithObject: true });
    const nr = new Rand(rng(seed * 31 + index));
    const sigma = degradation.noise;
    for (let i = 0; i < data.length; i += info.channels) {
      const n = nr.gauss() * sigma;
      for (let c = 0; c < Math.min(3, info.channels); c++)
        data[i + c] = Math.max(0, Math.min(255, Math.round(data[i + c]! + n)));
    }
    format = 'jpeg';
    bytes = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .jpeg({ quality: 82 })
      .toBuffer();
  } else {
    bytes = await img.png().toBuffer();
  }

  const identifiers: TruthItem[] = [];
  const clinical: TruthItem[] = [];
  const dates: TruthItem[] = [];
  for (const el of pg.els) {
    const lineText = el.segs.map((s) => s.t).join('');
    for (const [i, s] of el.segs.entries()) {
      if (!s.k) continue;
      const box = await measure(el, i);
      if (!box) continue;
      const item: TruthItem = {
        kind: s.k,
        text: s.t,
        line: lineText,
        fontSize: el.size,
        ...toTruth(box, rot),
      };
      (s.k === 'clinical' ? clinical : s.k === 'date' ? dates : identifiers).push(item);
    }
  }
  const subject: SubjectRecord = {
    name: p.name,
    initials: p.initials,
    ...(r.chance(0.7) ? { medicalRecordId: p.mrn } : {}),
    ...(r.chance(0.5) ? { inpatientId: p.inpatientNo } : {}),
    ...(r.chance(0.5) ? { outpatientId: p.outpatientNo } : {}),
    ...(r.chance(0.6) ? { idCard: p.idCard } : {}),
  };
  return {
    index,
    id: `p${String(index + 1).padStart(2, '0')}-${lang}-${doc}${rot ? `-rot${rot}` : ''}${degradation.noise ? '-noise' : ''}${degradation.lowContrast ? '-lowcontrast' : ''}`,
    lang,
    doc,
    degradation,
    width: PAGE_WIDTH,
    height: PAGE_HEIGHT,
    format,
    bytes,
    identifiers,
    clinical,
    dates,
    subject,
  };
}

/** Pages 0..n-1. */
export async function* generatePages(n: number, seed = 12): AsyncGenerator<GeneratedPage> {
  for (let i = 0; i < n; i++) yield await generatePage(i, seed);
}

/** `--name value` from argv, else the variable NAME (what `npm run bench -- deid-quality` can pass), else the fallback. */
export function argOf(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1]!;
  return process.env[name.toUpperCase()]?.trim() || fallback;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pages = Number(argOf('pages', '40'));
  const seed = Number(argOf('seed', '12'));
  const out = argOf('out', path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'deid-docs'));
  fs.mkdirSync(out, { recursive: true });
  const t0 = Date.now();
  for await (const pg of generatePages(pages, seed)) {
    const base = path.join(out, pg.id);
    fs.writeFileSync(`${base}.${pg.format === 'png' ? 'png' : 'jpg'}`, pg.bytes);
    const { bytes: _bytes, ...truth } = pg;
    fs.writeFileSync(`${base}.json`, JSON.stringify(truth, null, 1));
    console.log(
      `${pg.id}: ${pg.identifiers.length} identifiers, ${pg.clinical.length} clinical values, ${pg.dates.length} kept dates, ${(pg.bytes.length / 1024).toFixed(0)} KB`,
    );
  }
  console.log(`${pages} pages in ${((Date.now() - t0) / 1000).toFixed(1)} s → ${out}`);
}
