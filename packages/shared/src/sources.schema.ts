/**
 * Hospital connections, extraction tasks, source records, the matching queue and the extraction / change reports
 * (issue 11 items 1, 2, 5; spec §2 source-data page, /project/SickFile/gatherPtsData/detail,
 * /project/gatherData/detail; §7 /project/managePts/addPtsTask, update/ptsTask, queryTypeList,
 * /project/manage/queryProcessBar, /pts/extract/report/*, /dataChangeReport/*).
 *
 * Secrets (a bearer token, a SMART private key, a database password) are sent by the browser only when they change
 * (`secret`), stored encrypted, and never sent back: views say `hasSecret`.
 */
import { z } from 'zod';
import { dateSchema, idListSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { IDENTIFIER_TYPES } from './enums';

export const CONNECTION_KINDS = ['fhir', 'fhir_file', 'hl7v2', 'sql'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

/** The FHIR R4 resource types a 'fhir' connection may search (by patient and date window). */
export const FHIR_SEARCH_TYPES = [
  'Observation',
  'Condition',
  'MedicationRequest',
  'MedicationStatement',
  'Procedure',
  'DiagnosticReport',
  'Encounter',
  'AllergyIntolerance',
  'Immunization',
] as const;
export type FhirSearchType = (typeof FHIR_SEARCH_TYPES)[number];

/** The search parameter that carries the clinical date of each type (its date window). */
export const FHIR_DATE_PARAM: Record<FhirSearchType, string> = {
  Observation: 'date',
  Condition: 'recorded-date',
  MedicationRequest: 'authoredon',
  MedicationStatement: 'effective',
  Procedure: 'date',
  DiagnosticReport: 'date',
  Encounter: 'date',
  AllergyIntolerance: 'date',
  Immunization: 'date',
};

export const FHIR_AUTH_KINDS = ['none', 'bearer', 'smart'] as const;
export const SMART_ALGORITHMS = ['RS384', 'ES384'] as const;
export const SQL_DIALECTS = ['postgres', 'mysql'] as const;
/** the columns a SQL query's rows are read through (the row's own column names on the right) */
export const SQL_COLUMN_ROLES = ['patientKey', 'code', 'display', 'value', 'unit', 'effective', 'status', 'externalKey'] as const;
/** identifier types a source identifier system can map to */
export const SOURCE_IDENTIFIER_TYPES = [...IDENTIFIER_TYPES, 'other'] as const;

const bool = z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), z.boolean());
const httpUrl = z
  .string()
  .trim()
  .max(500)
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
      } catch {
        return false;
      }
    },
    { message: 'validation.httpUrl' },
  );

export const identifierSystemMap = z.object({
  /** FHIR identifier.system (or HL7 CX-4 assigning authority) */
  system: z.string().trim().min(1).max(300),
  type: z.enum(SOURCE_IDENTIFIER_TYPES),
});
export type IdentifierSystemMap = z.infer<typeof identifierSystemMap>;

export const fhirConnectionConfig = z
  .object({
    baseUrl: httpUrl,
    auth: z.enum(FHIR_AUTH_KINDS).default('none'),
    /** SMART Backend Services (auth 'smart') */
    tokenUrl: httpUrl.optional(),
    clientId: z.string().trim().max(200).optional(),
    scope: z.string().trim().max(500).optional(),
    keyId: z.string().trim().max(200).optional(),
    algorithm: z.enum(SMART_ALGORITHMS).optional(),
    /** which identifier systems are which of the spec's identifier types (a subject is looked up by each) */
    identifierSystems: z.array(identifierSystemMap).max(20).default([]),
    timeoutMs: intSchema(1000, 300_000).default(30_000),
    /** `next` links followed at most per search (an endless chain stops with an error) */
    pageLimit: intSchema(1, 10_000).default(200),
    /** _count per page */
    pageSize: intSchema(1, 1000).default(100),
    resourceTypes: z.array(z.enum(FHIR_SEARCH_TYPES)).min(1).default([...FHIR_SEARCH_TYPES]),
  })
  .superRefine((c, ctx) => {
    if (c.auth === 'smart') {
      if (!c.tokenUrl) ctx.addIssue({ code: 'custom', path: ['tokenUrl'], message: 'validation.required' });
      if (!c.clientId) ctx.addIssue({ code: 'custom', path: ['clientId'], message: 'validation.required' });
      if (!c.algorithm) ctx.addIssue({ code: 'custom', path: ['algorithm'], message: 'validation.required' });
    }
  });
export type FhirConnectionConfig = z.infer<typeof fhirConnectionConfig>;

export const fhirFileConnectionConfig = z.object({
  /** a folder on the server watched for dropped files (optional; files can always be uploaded) */
  dropFolder: z.string().trim().max(500).optional(),
  identifierSystems: z.array(identifierSystemMap).max(20).default([]),
});
export type FhirFileConnectionConfig = z.infer<typeof fhirFileConnectionConfig>;

export const hl7ConnectionConfig = z.object({
  /** MSH-3 and MSH-4: the MLLP listener routes a message to the connection whose keys match */
  sendingApp: z.string().trim().min(1).max(200),
  sendingFacility: z.string().trim().min(1).max(200),
  identifierSystems: z.array(identifierSystemMap).max(20).default([]),
});
export type Hl7ConnectionConfig = z.infer<typeof hl7ConnectionConfig>;

export const sqlQueryConfig = z.object({
  docType: intSchema(1, 8),
  /** unique within the connection; part of each record's external id 'SQL/<name>/<key>' */
  name: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9_-]+$/, { message: 'validation.identifier' }),
  /** one SELECT with the parameters :patientId, :from, :to (bound, never concatenated) */
  sql: z.string().trim().min(1).max(10_000),
  columns: z.object({
    patientKey: z.string().trim().min(1).max(100),
    externalKey: z.string().trim().min(1).max(100),
    code: z.string().trim().max(100).optional(),
    display: z.string().trim().max(100).optional(),
    value: z.string().trim().max(100).optional(),
    unit: z.string().trim().max(100).optional(),
    effective: z.string().trim().max(100).optional(),
    status: z.string().trim().max(100).optional(),
  }),
});
export type SqlQueryConfig = z.infer<typeof sqlQueryConfig>;

export const sqlConnectionConfig = z.object({
  dialect: z.enum(SQL_DIALECTS),
  host: z.string().trim().min(1).max(200),
  port: intSchema(1, 65535),
  database: z.string().trim().min(1).max(100),
  user: z.string().trim().min(1).max(100),
  ssl: bool.default(false),
  timeoutMs: intSchema(1000, 300_000).default(30_000),
  /** which identifier type's value of the subject is bound as :patientId */
  patientIdentifier: z.enum(IDENTIFIER_TYPES).default('medicalRecordId'),
  queries: z.array(sqlQueryConfig).min(1).max(8 * 5),
});
export type SqlConnectionConfig = z.infer<typeof sqlConnectionConfig>;

export const connectionConfigByKind = {
  fhir: fhirConnectionConfig,
  fhir_file: fhirFileConnectionConfig,
  hl7v2: hl7ConnectionConfig,
  sql: sqlConnectionConfig,
} as const;
export type ConnectionConfig = FhirConnectionConfig | FhirFileConnectionConfig | Hl7ConnectionConfig | SqlConnectionConfig;

/**
 * POST /project/source/connection/add and /update (JSON). `config` is validated against the kind's schema
 * (errors point at config.<field>). `secret`: the bearer token (fhir/bearer), the private key PEM (fhir/smart) or the
 * database password (sql); absent on update = unchanged; `clearSecret` removes it.
 */
export const connectionSave = z.object({
  id: idSchema.optional(),
  version: idSchema.optional(),
  siteId: idSchema,
  kind: z.enum(CONNECTION_KINDS),
  name: z.string().trim().min(1).max(100),
  enabled: bool.default(true),
  config: z.record(z.string(), z.unknown()),
  secret: z.string().max(20_000).optional(),
  clearSecret: bool.optional(),
});
export type ConnectionSave = z.infer<typeof connectionSave>;

/** POST /project/source/connection/list (form): connections of my sites in the current project and env. */
export const connectionListRequest = z.object({ siteId: idSchema.optional(), kind: z.enum(CONNECTION_KINDS).optional() });
export const connectionView = z.object({
  id: z.number().int(),
  siteId: z.number().int(),
  siteName: z.string(),
  kind: z.enum(CONNECTION_KINDS),
  name: z.string(),
  enabled: z.boolean(),
  /** the kind's config as saved (never a secret) */
  config: z.record(z.string(), z.unknown()),
  hasSecret: z.boolean(),
  version: z.number().int(),
  lastTestAt: z.string().nullable(),
  lastTestOk: z.boolean().nullable(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type ConnectionView = z.infer<typeof connectionView>;
/** GET /project/source/connection/detail?id= */
export const connectionIdRequest = z.object({ id: idSchema });
/** POST /project/source/connection/delete (form, soft) */
export const connectionDeleteRequest = z.object({ id: idSchema, version: idSchema });
/** POST /project/source/connection/enable (form) */
export const connectionEnableRequest = z.object({ id: idSchema, version: idSchema, enabled: bool });

/**
 * POST /project/source/connection/test (JSON): reach the source and report what it found, storing nothing.
 * fhir: GET /metadata, then (with an identifier or a subject) the patient lookup and the resources by type.
 * sql: each query with a LIMIT for the patient.
 */
export const connectionTestRequest = z.object({
  id: idSchema,
  /** look a patient up by this identifier value (optionally of one system) */
  identifierValue: z.string().trim().max(100).optional(),
  identifierSystem: z.string().trim().max(300).optional(),
  /** or by the identifiers of this subject */
  ptsId: idSchema.optional(),
});
export const connectionTestResult = z.object({
  ok: z.boolean(),
  /** the failure in the request's language (the server's OperationOutcome text included) */
  message: z.string().nullable(),
  errorCode: z.string().nullable(),
  fhirVersion: z.string().nullable(),
  software: z.string().nullable(),
  patientsMatched: z.number().int().nullable(),
  /** resources (fhir) or rows (sql, per query name) found for the patient, capped by the test */
  counts: z.array(z.object({ type: z.string(), count: z.number().int(), more: z.boolean() })),
  elapsedMs: z.number().int(),
  testedAt: z.string(),
});
export type ConnectionTestResult = z.infer<typeof connectionTestResult>;

/** POST /project/source/connection/upload (multipart: id, file): a FHIR Bundle (JSON) or Bulk Data NDJSON file. */
export const connectionUploadRequest = z.object({ id: idSchema });
export const connectionUploadResult = z.object({ taskId: z.number().int() });

// ── extraction tasks ──
export const TASK_TRIGGERS = ['manual', 'auto', 'schedule', 'file', 'hl7'] as const;
/** 0 queued, 1 running, 2 done, 3 failed, 4 cancelled */
export const TASK_STATUS = { queued: 0, running: 1, done: 2, failed: 3, cancelled: 4 } as const;

/** What an extraction stored and skipped. Every input is accounted for. */
export const extractStats = z.object({
  /** resources (fhir/file), rows (sql) read */
  read: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  /** skipped by reason (notClinical, noPatient, unsupportedType, enteredInError, malformed) */
  skipped: z.record(z.string(), z.number().int()),
  /** new or changed by document type ('1'..'8') */
  byDocType: z.record(z.string(), z.number().int()),
  /** resources read by type */
  byResourceType: z.record(z.string(), z.number().int()),
  patientsMatched: z.number().int(),
  patientsQueued: z.number().int(),
  pages: z.number().int(),
  /** subjects whose records were created or changed */
  subjects: z.number().int(),
  /** connections the task reached (a task without a connection reaches all of the subject's site) */
  connections: z.number().int(),
  /** items the automatic pre-fill afterwards filled (entry mode 6), when it ran */
  prefilled: z.number().int().optional(),
});
export type ExtractStats = z.infer<typeof extractStats>;

export const taskView = z.object({
  id: z.number().int(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteId: z.number().int().nullable(),
  siteName: z.string().nullable(),
  connectionId: z.number().int().nullable(),
  connectionName: z.string().nullable(),
  trigger: z.enum(TASK_TRIGGERS),
  status: z.number().int(),
  dateFrom: z.string().nullable(),
  dateTo: z.string().nullable(),
  stats: extractStats.partial(),
  /** the failure's message key and its text in the request's language */
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  errorDetail: z.string().nullable(),
  /** done/total units of work (subjects × connections × resource types) */
  done: z.number().int(),
  total: z.number().int(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  startTime: z.string().nullable(),
  finishTime: z.string().nullable(),
});
export type TaskView = z.infer<typeof taskView>;

/**
 * POST /project/managePts/addPtsTask (form): a manual extraction for one or more subjects (ptsIds=1,2 or ptsId).
 * connectionId: one connection of the subject's site; absent: all enabled fhir/sql connections of it.
 * A subject that already has a queued or running task is refused (source.taskLive) and nothing is queued.
 */
export const addPtsTaskRequest = z
  .object({
    ptsIds: idListSchema.optional(),
    ptsId: idSchema.optional(),
    connectionId: idSchema.optional(),
    dateFrom: dateSchema.optional(),
    dateTo: dateSchema.optional(),
    /** the visits to pre-fill automatically afterwards (default: those whose window holds today) */
    prefillVisitIds: idListSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (!r.ptsId && (!r.ptsIds || r.ptsIds.length === 0)) ctx.addIssue({ code: 'custom', path: ['ptsIds'], message: 'validation.required' });
    if (r.ptsIds && r.ptsIds.length > 500) ctx.addIssue({ code: 'custom', path: ['ptsIds'], message: 'validation.tooManyItems' });
    if (r.dateFrom && r.dateTo && r.dateFrom > r.dateTo) ctx.addIssue({ code: 'custom', path: ['dateTo'], message: 'validation.startAfterEnd' });
  });
export const addPtsTaskResult = z.object({ tasks: z.array(taskView) });

/** POST /project/managePts/update/ptsTask (form): cancel a queued/running task, or retry a failed/cancelled one. */
export const updatePtsTaskRequest = z.object({ taskId: idSchema, action: z.enum(['cancel', 'retry']) });

/** POST /project/managePts/queryTypeList (form: ptsId): the subject's source records by document type. */
export const ptsIdRequest = z.object({ ptsId: idSchema });
export const docTypeCount = z.object({
  /** 1..8 (SOURCE_DOC_TYPES order) */
  docType: z.number().int(),
  count: z.number().int(),
  /** records of this type changed at the hospital since first seen */
  changed: z.number().int(),
  latestDate: z.string().nullable(),
});
export type DocTypeCount = z.infer<typeof docTypeCount>;

/** POST /project/manage/queryProcessBar (form: ptsId): the subject's latest extraction and its progress. */
export const processBarResult = z.object({
  task: taskView.nullable(),
  /** 0..100 */
  percent: z.number().int(),
  running: z.boolean(),
});
export type ProcessBarResult = z.infer<typeof processBarResult>;

/** POST /project/SickFile/gatherPtsData/detail (form: ptsId): a subject's acquisition page. */
export const gatherPtsDataDetail = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  types: z.array(docTypeCount),
  tasks: z.array(taskView),
  /** the subject's site's connections an extraction can use */
  connections: z.array(z.object({ id: z.number().int(), name: z.string(), kind: z.enum(CONNECTION_KINDS), enabled: z.boolean() })),
  /** source patients matched to this subject */
  sourcePatients: z.number().int(),
  lastExtractTime: z.string().nullable(),
});
export type GatherPtsDataDetail = z.infer<typeof gatherPtsDataDetail>;

/** A source record as the lists, the pre-fill and the mapping screens show it (without its raw payload). */
export const sourceRecordBrief = z.object({
  id: z.number().int(),
  version: z.number().int(),
  docType: z.number().int(),
  resourceType: z.string(),
  codeSystem: z.string().nullable(),
  code: z.string().nullable(),
  display: z.string().nullable(),
  valueNum: z.number().nullable(),
  valueText: z.string().nullable(),
  unit: z.string().nullable(),
  effectiveDate: z.string().nullable(),
  effectiveAt: z.string().nullable(),
});
export type SourceRecordBrief = z.infer<typeof sourceRecordBrief>;

/** POST /project/gatherData/detail (form: taskId): one task with its records stored/changed. */
export const taskIdRequest = z.object({ taskId: idSchema });
export const gatherDataDetail = z.object({
  task: taskView,
  /** records created or changed by this task, newest first, at most 200 */
  records: z.array(sourceRecordBrief.omit({ codeSystem: true, effectiveAt: true }).extend({ changeKind: z.string() })),
});
export type GatherDataDetail = z.infer<typeof gatherDataDetail>;

// ── source records ──
/** POST /project/source/records/list (form): a subject's records, sorted by effective date (newest first). */
export const sourceRecordListRequest = pageRequest.extend({
  ptsId: idSchema,
  docType: intSchema(1, 8).optional(),
  dateFrom: dateSchema.optional(),
  dateTo: dateSchema.optional(),
  /** contains, case-insensitive, in display or code */
  text: z.string().trim().max(100).optional(),
  sort: z.enum(['desc', 'asc']).default('desc'),
});
/** 'ocr': a result read from a source document's OCR text (OCR association, ocr-association.schema.ts) */
export const SOURCE_RAW_FORMATS = ['fhir', 'hl7v2', 'sql', 'ocr'] as const;
export const sourceRecordRow = sourceRecordBrief.extend({
  status: z.string().nullable(),
  rawFormat: z.enum(SOURCE_RAW_FORMATS),
  connectionId: z.number().int(),
  connectionName: z.string(),
  updateTime: z.string(),
});
export type SourceRecordRow = z.infer<typeof sourceRecordRow>;
export const sourceRecordPage = pageResult(sourceRecordRow);

/** GET /project/source/record/detail?id=&version= : the record (or one version) with its raw payload and versions. */
export const sourceRecordDetailRequest = z.object({ id: idSchema, version: idSchema.optional() });
export const sourceRecordVersionRow = z.object({
  version: z.number().int(),
  changeKind: z.string(),
  valueNum: z.number().nullable(),
  valueText: z.string().nullable(),
  unit: z.string().nullable(),
  effectiveAt: z.string().nullable(),
  taskId: z.number().int().nullable(),
  createTime: z.string(),
});
export const sourceRecordDetail = sourceRecordRow.extend({
  /** the version shown (raw is that version's) */
  shownVersion: z.number().int(),
  externalId: z.string(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteId: z.number().int(),
  raw: z.string(),
  versions: z.array(sourceRecordVersionRow),
  createTime: z.string(),
});
export type SourceRecordDetail = z.infer<typeof sourceRecordDetail>;

// ── matching queue ──
/** 0 waiting, 1 matched automatically, 2 assigned by a user, 3 dismissed (not in the study) */
export const SOURCE_PATIENT_STATUS = { waiting: 0, matched: 1, assigned: 2, dismissed: 3 } as const;
/** POST /project/source/match/list (form): source patients of my sites (default: waiting). */
export const matchQueueRequest = pageRequest.extend({
  siteId: idSchema.optional(),
  status: intSchema(0, 3).optional(),
  connectionId: idSchema.optional(),
});
export const matchQueueRow = z.object({
  id: z.number().int(),
  connectionId: z.number().int(),
  connectionName: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  patientKey: z.string(),
  identifiers: z.array(z.object({ type: z.string(), system: z.string().optional(), value: z.string() })),
  name: z.string().nullable(),
  birthDate: z.string().nullable(),
  gender: z.string().nullable(),
  status: z.number().int(),
  records: z.number().int(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  matchedBy: z.string().nullable(),
  matchTime: z.string().nullable(),
  createTime: z.string(),
});
export type MatchQueueRow = z.infer<typeof matchQueueRow>;
export const matchQueuePage = pageResult(matchQueueRow);
/** POST /project/source/match/assign (form): this source patient is that subject (same site). */
export const matchAssignRequest = z.object({ id: idSchema, ptsId: idSchema });
/** POST /project/source/match/dismiss (form): this source patient is not in the study. */
export const matchDismissRequest = z.object({ id: idSchema });
export const matchResult = z.object({ id: z.number().int(), status: z.number().int(), ptsId: z.number().int().nullable(), records: z.number().int() });

// ── reports ──
/** POST /pts/extract/report/listByPage (form): extraction tasks with their stats. */
export const extractReportRequest = pageRequest.extend({
  siteId: idSchema.optional(),
  ptsId: idSchema.optional(),
  ptsNo: z.string().trim().max(30).optional(),
  status: intSchema(0, 4).optional(),
  trigger: z.enum(TASK_TRIGGERS).optional(),
  dateFrom: dateSchema.optional(),
  dateTo: dateSchema.optional(),
});
export const extractReportPage = pageResult(taskView);

/**
 * POST /pts/extract/report/syncChangeListByPage and /dataChangeReport/pageQuery (form), GET /dataChangeReport/export:
 * records the hospital changed (version > 1): what changed, old → new, when we saw it.
 */
export const changeReportRequest = pageRequest.extend({
  siteId: idSchema.optional(),
  ptsId: idSchema.optional(),
  ptsNo: z.string().trim().max(30).optional(),
  docType: intSchema(1, 8).optional(),
  dateFrom: dateSchema.optional(),
  dateTo: dateSchema.optional(),
});
export const changeRow = z.object({
  recordId: z.number().int(),
  version: z.number().int(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteName: z.string(),
  docType: z.number().int(),
  resourceType: z.string(),
  code: z.string().nullable(),
  display: z.string().nullable(),
  /** 'value', 'unit', 'effective', or 'content' (something else in the payload) */
  changed: z.array(z.string()),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  oldUnit: z.string().nullable(),
  newUnit: z.string().nullable(),
  oldEffective: z.string().nullable(),
  newEffective: z.string().nullable(),
  taskId: z.number().int().nullable(),
  changeTime: z.string(),
});
export type ChangeRow = z.infer<typeof changeRow>;
export const changeReportPage = pageResult(changeRow);
/** POST /pts/extract/report/getPatientDataChangeDTOList (form: ptsId): all of a subject's changes, newest first. */
export const patientChangeRequest = z.object({ ptsId: idSchema, docType: intSchema(1, 8).optional() });
