/**
 * The database schema (Drizzle). One schema for the embedded PGlite and the PostgreSQL server; migrations are
 * generated from it by drizzle-kit (plus hand-written ones for triggers) and kept to PostgreSQL 15 features.
 *
 * Every project-scoped row carries `env` (DEV/UAT/PRO): the environments are separate worlds for study data.
 */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  customType,
  doublePrecision,
  smallint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import type { LabAssessment } from '@esource/interop';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const created = () => ts('created_at').notNull().defaultNow();
const updated = () => ts('updated_at').notNull().defaultNow();
const envCol = () => varchar('env', { length: 3 }).notNull();

export const organizations = pgTable('organizations', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 30 }).notNull(),
  code: varchar('code', { length: 50 }),
  address: varchar('address', { length: 200 }),
  status: integer('status').notNull().default(1),
  createdAt: created(),
  updatedAt: updated(),
});

export const departments = pgTable(
  'departments',
  {
    id: serial('id').primaryKey(),
    orgId: integer('org_id')
      .notNull()
      .references(() => organizations.id),
    name: varchar('name', { length: 50 }).notNull(),
    code: varchar('code', { length: 50 }),
    status: integer('status').notNull().default(1),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('departments_org_name').on(t.orgId, t.name)],
);

/** Login time windows: [{ days: [1..7] (ISO weekday), start: 'HH:MM', end: 'HH:MM' }], in `timezone`. */
export interface LoginWindow {
  days: number[];
  start: string;
  end: string;
}

export const permissionGroups = pgTable('permission_groups', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 50 }).notNull().unique(),
  description: varchar('description', { length: 200 }),
  loginWindows: jsonb('login_windows').$type<LoginWindow[]>().notNull().default([]),
  timezone: varchar('timezone', { length: 64 }).notNull().default('Asia/Shanghai'),
  reviewerUserId: integer('reviewer_user_id'),
  status: integer('status').notNull().default(1),
  createdAt: created(),
  updatedAt: updated(),
});

export const roles = pgTable('roles', {
  id: serial('id').primaryKey(),
  /** role id shown to users: at most 20 characters (spec §5) */
  code: varchar('code', { length: 20 }).notNull().unique(),
  /** role name: at most 10 characters (spec §5) */
  name: varchar('name', { length: 10 }).notNull(),
  nameEn: varchar('name_en', { length: 50 }),
  description: varchar('description', { length: 200 }),
  /** 'system' roles give system permissions to a user; 'project' roles are held per project membership */
  kind: varchar('kind', { length: 10 }).notNull().default('project'),
  /** data-manager role: the only kind that may be added to a project in DEV (spec §6) */
  isDm: boolean('is_dm').notNull().default(false),
  envDev: boolean('env_dev').notNull().default(false),
  envUat: boolean('env_uat').notNull().default(true),
  envPro: boolean('env_pro').notNull().default(true),
  status: integer('status').notNull().default(1),
  createdAt: created(),
  updatedAt: updated(),
});

export const rolePermissions = pgTable(
  'role_permissions',
  {
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    permission: varchar('permission', { length: 100 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.permission] })],
);

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    account: varchar('account', { length: 50 }).notNull(),
    name: varchar('name', { length: 50 }).notNull(),
    phone: varchar('phone', { length: 20 }),
    mail: varchar('mail', { length: 100 }),
    idNumber: varchar('id_number', { length: 18 }),
    orgId: integer('org_id').references(() => organizations.id),
    deptId: integer('dept_id').references(() => departments.id),
    /** login types (spec §1: 1 centre, 2 monitor, 3 site, 4 AE) this user may log in as */
    loginTypes: integer('login_types').array().notNull().default(sql`'{}'::integer[]`),
    systemRoleId: integer('system_role_id').references(() => roles.id),
    permissionGroupId: integer('permission_group_id').references(() => permissionGroups.id),
    /** argon2id of the SHA-256 digest the client sends */
    passwordHash: text('password_hash').notNull(),
    passwordChangedAt: ts('password_changed_at'),
    status: integer('status').notNull().default(1),
    failedLoginCount: integer('failed_login_count').notNull().default(0),
    lockedUntil: ts('locked_until'),
    lastLoginAt: ts('last_login_at'),
    imgUrl: varchar('img_url', { length: 300 }),
    language: varchar('language', { length: 5 }),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('users_account_lower').on(sql`lower(${t.account})`)],
);

/**
 * Failed-login counts for account names that have no user (migration 0010), counted exactly like
 * users.failed_login_count / locked_until so that an unknown name answers like a real one.
 */
export const loginThrottle = pgTable(
  'login_throttle',
  {
    accountKey: varchar('account_key', { length: 100 }).primaryKey(),
    failedCount: integer('failed_count').notNull().default(0),
    lockedUntil: ts('locked_until'),
    updatedAt: updated(),
  },
  (t) => [index('login_throttle_updated').on(t.updatedAt)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: serial('id').primaryKey(),
    /** SHA-256 of the opaque token; the token itself is never stored */
    tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    loginType: integer('login_type').notNull(),
    env: envCol(),
    ip: varchar('ip', { length: 64 }),
    userAgent: varchar('user_agent', { length: 300 }),
    createdAt: created(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    endedAt: ts('ended_at'),
    endReason: varchar('end_reason', { length: 20 }),
  },
  (t) => [index('sessions_user').on(t.userId)],
);

export const projects = pgTable(
  'projects',
  {
    id: serial('id').primaryKey(),
    /** study number: at most 20 characters (spec §5) */
    no: varchar('no', { length: 20 }).notNull(),
    /** full name: at most 100 characters (spec §5) */
    name: varchar('name', { length: 100 }).notNull(),
    /** 0 draft, 1 active, 2 paused, 3 closed */
    status: integer('status').notNull().default(1),
    fileConfirmConfig: integer('file_confirm_config').notNull().default(0),
    autoPrefillDisabled: boolean('auto_prefill_disabled').notNull().default(false),
    uuidNo: uuid('uuid_no').notNull().defaultRandom(),
    /** five characters 0/1, one per optional function ('' = all on): packages/shared project-features.ts */
    configFiveFunction: varchar('config_five_function', { length: 50 }).notNull().default(''),
    /** 1 remote monitoring, 2 E2E */
    scene: integer('scene').notNull().default(1),
    /** the project's time zone: automatic extraction runs at 12:00 there (IANA name) */
    timezone: varchar('timezone', { length: 64 }).notNull().default('Asia/Shanghai'),
    createdBy: integer('created_by').references(() => users.id),
    version: integer('version').notNull().default(1),
    /** soft delete: only a project without subject data can be deleted, and its trail stays */
    deletedAt: ts('deleted_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('projects_no').on(t.no).where(sql`${t.deletedAt} is null`),
    uniqueIndex('projects_uuid').on(t.uuidNo),
    check('projects_scene', sql`${t.scene} in (1, 2)`),
    check('projects_status', sql`${t.status} between 0 and 3`),
    check('projects_config_five_function', sql`${t.configFiveFunction} ~ '^[01]{0,5}$'`),
  ],
);

/** A research centre: a project × organisation, per environment. */
export const sites = pgTable(
  'sites',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    orgId: integer('org_id')
      .notNull()
      .references(() => organizations.id),
    siteNo: varchar('site_no', { length: 20 }).notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    piUserId: integer('pi_user_id').references(() => users.id),
    status: integer('status').notNull().default(1),
    /** risk level (spec §3): 1 high, 2 middle, 3 low — the share of its forms that need SDV (migration 0024) */
    riskLevel: smallint('risk_level').notNull().default(2),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('sites_env_project_org').on(t.env, t.projectId, t.orgId),
    uniqueIndex('sites_env_project_no').on(t.env, t.projectId, t.siteNo),
  ],
);

export const projectMembers = pgTable(
  'project_members',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id),
    /** true: every site of the project; false: only the sites in project_member_sites */
    allSites: boolean('all_sites').notNull().default(false),
    status: integer('status').notNull().default(1),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('project_members_env_project_user').on(t.env, t.projectId, t.userId)],
);

export const projectMemberSites = pgTable(
  'project_member_sites',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => projectMembers.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
  },
  (t) => [primaryKey({ columns: [t.memberId, t.siteId] })],
);

/**
 * The audit trail: append-only (a trigger refuses UPDATE, DELETE and TRUNCATE), hash-chained per project, and
 * per subject within a project for subject data (`chain_key` = 'project:<id>', 'project:<id>:subject:<id>' or
 * 'system'); `seq` numbers each chain without gaps.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    chainKey: varchar('chain_key', { length: 40 }).notNull(),
    seq: integer('seq').notNull(),
    env: varchar('env', { length: 3 }),
    projectId: integer('project_id'),
    siteId: integer('site_id'),
    subjectId: integer('subject_id'),
    userId: integer('user_id'),
    userName: varchar('user_name', { length: 50 }),
    action: varchar('action', { length: 50 }).notNull(),
    entity: varchar('entity', { length: 50 }).notNull(),
    entityId: varchar('entity_id', { length: 64 }),
    field: varchar('field', { length: 100 }),
    oldValue: text('old_value'),
    newValue: text('new_value'),
    reason: text('reason'),
    requestId: varchar('request_id', { length: 64 }),
    ip: varchar('ip', { length: 64 }),
    createdAt: ts('created_at').notNull(),
    prevHash: varchar('prev_hash', { length: 64 }).notNull(),
    hash: varchar('hash', { length: 64 }).notNull(),
    /** one action's item changes (JSON text of AuditChange[], migration 0048); null on single-field rows */
    changes: text('changes'),
  },
  (t) => [
    uniqueIndex('audit_events_chain_seq').on(t.chainKey, t.seq),
    index('audit_events_project_time').on(t.projectId, t.env, t.createdAt),
    index('audit_events_action_time').on(t.action, t.createdAt),
    index('audit_events_user_time').on(t.userId, t.createdAt),
  ],
);

/**
 * Signed checkpoints of the audit chains' heads (append-only, like audit_events; migration 0011). `heads` holds
 * [chainKey, seq, hash] of the chains whose head moved since the previous checkpoint; `digest` is SHA-256 over the
 * full set of heads; `mac` = HMAC over the previous checkpoint's mac and this one. Mirrored to a JSON-lines file.
 */
export const auditCheckpoints = pgTable('audit_checkpoints', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  createdAt: ts('created_at').notNull(),
  reason: varchar('reason', { length: 20 }).notNull(),
  chains: integer('chains').notNull(),
  rowCount: bigint('row_count', { mode: 'number' }).notNull(),
  heads: jsonb('heads').$type<[string, number, string][]>().notNull(),
  digest: varchar('digest', { length: 64 }).notNull(),
  prevMac: varchar('prev_mac', { length: 64 }).notNull(),
  mac: varchar('mac', { length: 64 }).notNull(),
});

/** Progress notice items (spec §3): what a job reports to the progress panel. */
export const progressItems = pgTable(
  'progress_items',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id'),
    /** the user who started the work and sees the notice */
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** 1 source upload/match, 2 subject extraction, 3 EDC sync */
    type: integer('type').notNull(),
    /** 1 processing, 2 success, 3 error */
    status: integer('status').notNull().default(1),
    displayInformation: varchar('display_information', { length: 500 }).notNull(),
    ptsNo: varchar('pts_no', { length: 50 }),
    ptsId: integer('pts_id'),
    designVersionId: integer('design_version_id'),
    extraInfo: jsonb('extra_info').$type<Record<string, { done: number; total: number }>>(),
    jobId: varchar('job_id', { length: 64 }),
    isRead: boolean('is_read').notNull().default(false),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('progress_items_user').on(t.userId, t.env, t.projectId, t.type, t.isRead),
    check('progress_items_type', sql`${t.type} in (1, 2, 3)`),
    check('progress_items_status', sql`${t.status} in (1, 2, 3)`),
  ],
);

/**
 * A design version of a project: stages, visits and forms. Edited while unpublished (status 0, in DEV);
 * published (status 1) to UAT and/or PRO, after which it is read-only — changes go into a new version.
 * It is 'collecting' once study data exists against it (then it can never be deleted).
 */
export const designVersions = pgTable(
  'design_versions',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    versionNo: integer('version_no').notNull(),
    name: varchar('name', { length: 50 }).notNull(),
    status: integer('status').notNull().default(0),
    /** environments it is published to (UAT, PRO) */
    publishedEnvs: varchar('published_envs', { length: 3 }).array().notNull().default(sql`'{}'::varchar[]`),
    publishedAt: ts('published_at'),
    publishedBy: integer('published_by').references(() => users.id),
    basedOnId: integer('based_on_id'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('design_versions_project_no').on(t.projectId, t.versionNo)],
);

export const stages = pgTable('stages', {
  id: serial('id').primaryKey(),
  versionId: integer('version_id')
    .notNull()
    .references(() => designVersions.id, { onDelete: 'cascade' }),
  name: varchar('name', { length: 50 }).notNull(),
  sortOrder: integer('sort_order').notNull().default(0),
});

/** A planned visit: day offset from the first visit and its window (−before/+after days); or unscheduled. */
export const visits = pgTable(
  'visits',
  {
    id: serial('id').primaryKey(),
    versionId: integer('version_id')
      .notNull()
      .references(() => designVersions.id, { onDelete: 'cascade' }),
    stageId: integer('stage_id').references(() => stages.id, { onDelete: 'set null' }),
    code: varchar('code', { length: 30 }).notNull(),
    name: varchar('name', { length: 50 }).notNull(),
    /** the name shown when the language is en_US (falls back to `name`) */
    nameEn: varchar('name_en', { length: 50 }),
    sortOrder: integer('sort_order').notNull().default(0),
    dayOffset: integer('day_offset').notNull().default(0),
    windowBefore: integer('window_before').notNull().default(0),
    windowAfter: integer('window_after').notNull().default(0),
    unscheduled: boolean('unscheduled').notNull().default(false),
  },
  (t) => [uniqueIndex('visits_version_code').on(t.versionId, t.code)],
);

/** An eCRF form definition (the form designer's JSON) within a design version. */
export const forms = pgTable(
  'forms',
  {
    id: serial('id').primaryKey(),
    versionId: integer('version_id')
      .notNull()
      .references(() => designVersions.id, { onDelete: 'cascade' }),
    code: varchar('code', { length: 50 }).notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    nameEn: varchar('name_en', { length: 100 }),
    definition: jsonb('definition').$type<Record<string, unknown>>().notNull(),
    lockVersion: integer('lock_version').notNull().default(1),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('forms_version_code').on(t.versionId, t.code)],
);

export const visitForms = pgTable(
  'visit_forms',
  {
    visitId: integer('visit_id')
      .notNull()
      .references(() => visits.id, { onDelete: 'cascade' }),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id, { onDelete: 'cascade' }),
    sortOrder: integer('sort_order').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.visitId, t.formId] })],
);

/**
 * A subject (patient) of a project at a site, per environment. Status 0 = in the recycle bin (statusBeforeDelete
 * remembers where to restore to). Identifiers are what source systems match on (spec §3).
 */
export const subjects = pgTable(
  'subjects',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    ptsNo: varchar('pts_no', { length: 30 }).notNull(),
    status: integer('status').notNull(),
    statusReason: varchar('status_reason', { length: 500 }),
    statusBeforeDelete: integer('status_before_delete'),
    /** why it was moved to the recycle bin (cleared on restore; the audit trail keeps every reason) */
    deleteReason: varchar('delete_reason', { length: 500 }),
    designVersionId: integer('design_version_id').references(() => designVersions.id),
    firstVisitDate: date('first_visit_date', { mode: 'string' }).notNull(),
    initials: varchar('initials', { length: 10 }),
    medicalRecordId: varchar('medical_record_id', { length: 40 }),
    inpatientId: varchar('inpatient_id', { length: 40 }),
    outpatientId: varchar('outpatient_id', { length: 40 }),
    idCard: varchar('id_card', { length: 18 }),
    /** the subject's own risk level (1 high, 2 middle, 3 low; migration 0028): null inherits its site's (SDV share) */
    riskLevel: smallint('risk_level'),
    /**
     * Kept by refreshSubjectProgress in the transaction of every eCRF change: the first planned visit (plan
     * order) whose forms are not all completed (null when all are), and completed or certified forms / forms
     * expected (planned visit × form pairs plus each unscheduled visit's forms). The list reads them directly.
     */
    currentVisitId: integer('current_visit_id').references(() => visits.id, { onDelete: 'set null' }),
    formsDone: integer('forms_done').notNull().default(0),
    formsTotal: integer('forms_total').notNull().default(0),
    version: integer('version').notNull().default(1),
    createdBy: integer('created_by').references(() => users.id),
    deletedAt: ts('deleted_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('subjects_env_project_no').on(t.env, t.projectId, t.ptsNo),
    index('subjects_list').on(t.projectId, t.env, t.siteId, t.status),
    // the list's common orders, filtered by status or not: a page is read from the index, not sorted
    index('subjects_status_fvd').on(t.projectId, t.env, t.status, t.firstVisitDate, t.id),
    index('subjects_fvd').on(t.projectId, t.env, t.firstVisitDate, t.id),
    index('subjects_no').on(t.projectId, t.env, t.ptsNo),
    // the other orders with a status filter, and creation time without (migration 0051)
    index('subjects_status_created').on(t.projectId, t.env, t.status, t.createdAt, t.id),
    index('subjects_created').on(t.projectId, t.env, t.createdAt, t.id),
    index('subjects_status_no').on(t.projectId, t.env, t.status, t.ptsNo, t.id),
    index('subjects_status_id').on(t.projectId, t.env, t.status, t.id),
    // subject-number search ("contains") in the query and SDV lists; created by migration 0029 only where the
    // pg_trgm extension is available (the PostgreSQL server, not the embedded database)
    index('subjects_no_trgm').using('gin', sql`${t.ptsNo} gin_trgm_ops`),
    index('subjects_mrn').on(t.projectId, t.env, t.medicalRecordId),
    index('subjects_visit').on(t.projectId, t.env, t.currentVisitId, t.status),
    check('subjects_status', sql`${t.status} between 0 and 8`),
  ],
);

/**
 * How many subjects each project × environment × site × status × current visit (0 = none) has, kept by
 * statement triggers on subjects (migration 0008), so that a list page filtered only by those gets its exact total
 * from a handful of rows instead of counting subjects.
 */
export const subjectCounts = pgTable(
  'subject_counts',
  {
    projectId: integer('project_id').notNull(),
    env: envCol(),
    siteId: integer('site_id').notNull(),
    status: integer('status').notNull(),
    visitId: integer('visit_id').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.env, t.siteId, t.status, t.visitId] })],
);

/**
 * The study reports' counts (migration 0040) per project × environment × site × subject status × design version (0:
 * none) × visit × form × item ('' = the form; visit 0 and form 0 = the subjects themselves): the sum of the subjects'
 * own counts (subjects.report_counts, kept by refresh_subject_progress and not mapped here: no list needs it), kept
 * by a statement trigger on subjects. Pairs are planned visit × form pairs in the state of their least advanced live
 * instance; forms_* count saved (live) instances, missing_* those of them missing a required item (or the item).
 */
export const crfReportCounts = pgTable(
  'crf_report_counts',
  {
    projectId: integer('project_id').notNull(),
    env: envCol(),
    siteId: integer('site_id').notNull(),
    status: integer('status').notNull(),
    versionId: integer('version_id').notNull(),
    visitId: integer('visit_id').notNull(),
    formId: integer('form_id').notNull(),
    variable: varchar('variable', { length: 40 }).notNull(),
    subjects: integer('subjects').notNull().default(0),
    expected: integer('expected').notNull().default(0),
    pairsDraft: integer('pairs_draft').notNull().default(0),
    pairsCompleted: integer('pairs_completed').notNull().default(0),
    pairsCertified: integer('pairs_certified').notNull().default(0),
    formsDraft: integer('forms_draft').notNull().default(0),
    formsCompleted: integer('forms_completed').notNull().default(0),
    missingDraft: integer('missing_draft').notNull().default(0),
    missingCompleted: integer('missing_completed').notNull().default(0),
    /** values the data consistency report lists (subjects.consistency_counts, migration 0047), and by reason */
    differing: integer('differing').notNull().default(0),
    differingEdited: integer('differing_edited').notNull().default(0),
    differingChanged: integer('differing_changed').notNull().default(0),
    differingDeleted: integer('differing_deleted').notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: 'crf_report_counts_pk',
      columns: [t.projectId, t.env, t.siteId, t.status, t.versionId, t.visitId, t.formId, t.variable],
    }),
  ],
);

/** An unscheduled visit a subject had: an unscheduled visit of the plan on a date. */
export const subjectUnscheduledVisits = pgTable('subject_unscheduled_visits', {
  id: serial('id').primaryKey(),
  subjectId: integer('subject_id')
    .notNull()
    .references(() => subjects.id),
  visitId: integer('visit_id')
    .notNull()
    .references(() => visits.id),
  visitDate: date('visit_date', { mode: 'string' }).notNull(),
  label: varchar('label', { length: 100 }),
  createdBy: integer('created_by').references(() => users.id),
  createdAt: created(),
});

/**
 * One eCRF form instance: subject × visit (× unscheduled occurrence, 0 = none) × form × repeat (cycle forms).
 * Status 1 draft, 2 completed, 3 certified (no row = not started). `version` guards against lost updates.
 */
export const crfInstances = pgTable(
  'crf_instances',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    visitId: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    unscheduledId: integer('unscheduled_id').notNull().default(0),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id),
    repeatNo: integer('repeat_no').notNull().default(1),
    status: integer('status').notNull().default(1),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    certifiedBy: integer('certified_by').references(() => users.id),
    certifiedAt: ts('certified_at'),
    deletedAt: ts('deleted_at'),
    createdAt: created(),
    updatedAt: updated(),
    /**
     * The required items the saved values leave empty while shown (the eCRF's missingRequired), in form order, and
     * how many: written by every save (migration 0040), computed against the form's lock_version `missingRev`.
     * Null: not computed yet (instances from before 0040, until the workers' start computes them: ecrf/missing-items.ts).
     */
    missingItems: varchar('missing_items', { length: 40 }).array(),
    missingCount: integer('missing_count'),
    missingRev: integer('missing_rev'),
    /** a participant's answers (a shared form, migration 0042) wait for the site's review: the link that wrote them */
    pendingShareId: integer('pending_share_id').references((): AnyPgColumn => ddcShareLinks.id),
  },
  (t) => [
    uniqueIndex('crf_instances_key').on(t.subjectId, t.visitId, t.unscheduledId, t.formId, t.repeatNo),
    index('crf_instances_project').on(t.projectId, t.env, t.status),
    index('crf_instances_missing').on(t.subjectId).where(sql`missing_count > 0 and deleted_at is null`),
    index('crf_instances_missing_updated').on(t.updatedAt).where(sql`missing_count > 0 and deleted_at is null`),
    index('crf_instances_missing_rev').on(t.formId, t.missingRev).where(sql`deleted_at is null`),
    index('crf_instances_pending_share').on(t.subjectId).where(sql`pending_share_id is not null`),
  ],
);

/** The current value of one item of an instance, with its entry mode and where it came from. */
export const crfValues = pgTable(
  'crf_values',
  {
    id: serial('id').primaryKey(),
    instanceId: integer('instance_id')
      .notNull()
      .references(() => crfInstances.id),
    variable: varchar('variable', { length: 40 }).notNull(),
    /** the value wrapped as { v } so that every driver round-trips strings, numbers and lists alike */
    value: jsonb('value').$type<{ v: unknown }>(),
    /** stash 0, manual 2, direct 3, KBMS 4, gather 5, inject 6 */
    entryMode: integer('entry_mode').notNull(),
    /** link to the source record or document region the value came from */
    sourceRef: varchar('source_ref', { length: 200 }),
    /** a data-quality warning on an accepted value: 'range' = outside a soft range (an automatic query to raise) */
    quality: varchar('quality', { length: 30 }),
    updatedBy: integer('updated_by').references(() => users.id),
    updatedAt: updated(),
    /**
     * The newest pre-fill from a source record (a history row with a 'source:%' reference): that reference and what
     * it wrote, kept when the value is changed by hand since (migration 0040; the data consistency report).
     */
    filledRef: varchar('filled_ref', { length: 200 }),
    filledValue: jsonb('filled_value').$type<{ v: unknown }>(),
    /**
     * Why the data consistency report lists the value (bits: 1 edited since its pre-fill, 2 its source record changed
     * since, 4 that record deleted; 0 not listed), kept by triggers on the value and on source_records (migration 0047).
     */
    differs: smallint('differs').notNull().default(0),
  },
  (t) => [
    uniqueIndex('crf_values_instance_variable').on(t.instanceId, t.variable),
    index('crf_values_quality').on(t.instanceId).where(sql`quality is not null`),
    index('crf_values_prefill_edited')
      .on(t.instanceId)
      .where(sql`filled_ref is not null and (source_ref is null or source_ref not like 'source:%')`),
    index('crf_values_differs').on(t.instanceId).where(sql`differs <> 0`),
  ],
);

/** Every change of an item: who, when, old, new, reason, entry mode, and the instance version it made. */
export const crfValueHistory = pgTable(
  'crf_value_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // instance_id and user_id reference crf_instances and users, checked once a statement by triggers instead of
    // per-row foreign keys (migration 0054: a save writes 50 rows)
    instanceId: integer('instance_id').notNull(),
    variable: varchar('variable', { length: 40 }).notNull(),
    oldValue: jsonb('old_value').$type<{ v: unknown }>(),
    newValue: jsonb('new_value').$type<{ v: unknown }>(),
    entryMode: integer('entry_mode').notNull(),
    reason: varchar('reason', { length: 500 }),
    instanceVersion: integer('instance_version').notNull(),
    userId: integer('user_id'),
    userName: varchar('user_name', { length: 50 }),
    /** the data-quality warning the new value carried ('range': outside a soft range) */
    quality: varchar('quality', { length: 30 }),
    /** null: entered; 'condition': cleared because a display condition hid the item (reason: the user's) */
    cause: varchar('cause', { length: 30 }),
    /** the source record (or document region) a pre-filled value came from, as crf_values.source_ref */
    sourceRef: varchar('source_ref', { length: 200 }),
    createdAt: created(),
  },
  (t) => [index('crf_value_history_item').on(t.instanceId, t.variable)],
);

/** A hospital's application to join a project as a site (Center Application module, PRO only). */
export const centerApplications = pgTable(
  'center_applications',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    orgId: integer('org_id')
      .notNull()
      .references(() => organizations.id),
    applicantUserId: integer('applicant_user_id')
      .notNull()
      .references(() => users.id),
    /** 0 in progress, 1 passed, 2 not passed */
    status: integer('status').notNull().default(0),
    note: varchar('note', { length: 500 }),
    reviewerUserId: integer('reviewer_user_id').references(() => users.id),
    reviewReason: varchar('review_reason', { length: 500 }),
    reviewedAt: ts('reviewed_at'),
    siteId: integer('site_id').references(() => sites.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('center_applications_status').on(t.env, t.status)],
);

export const messages = pgTable(
  'messages',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id').references(() => projects.id),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    kind: varchar('kind', { length: 30 }).notNull(),
    title: varchar('title', { length: 200 }).notNull(),
    content: text('content').notNull().default(''),
    /** who sent it; null when the system wrote it */
    senderId: integer('sender_id').references(() => users.id),
    isRead: boolean('is_read').notNull().default(false),
    createdAt: created(),
    readAt: ts('read_at'),
  },
  (t) => [index('messages_user').on(t.userId, t.env, t.isRead), index('messages_user_list').on(t.userId, t.env, t.id.desc())],
);

// ── Source data from hospital systems (issue 11; migration 0015) ──

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/** Non-secret settings of a connection; the secrets are in secret_enc (AES-256-GCM) and never leave the server. */
export type SourceConnectionConfig = Record<string, unknown>;

/**
 * A connection of a project × site × environment to a hospital system: 'fhir' (FHIR R4 REST), 'fhir_file' (bundles /
 * Bulk Data NDJSON uploaded or dropped in a folder), 'hl7v2' (messages over MLLP routed here by sending app/facility),
 * 'sql' (read-only views of a hospital database). Configured by the data manager.
 */
export const sourceConnections = pgTable(
  'source_connections',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    kind: varchar('kind', { length: 20 }).$type<'fhir' | 'fhir_file' | 'hl7v2' | 'sql'>().notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    config: jsonb('config').$type<SourceConnectionConfig>().notNull().default({}),
    /** AES-256-GCM of the secrets' JSON (token, client private key, database password): never sent, never logged */
    secretEnc: text('secret_enc'),
    enabled: boolean('enabled').notNull().default(true),
    version: integer('version').notNull().default(1),
    lastTestAt: ts('last_test_at'),
    lastTestOk: boolean('last_test_ok'),
    createdBy: integer('created_by').references(() => users.id),
    deletedAt: ts('deleted_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('source_connections_scope').on(t.projectId, t.env, t.siteId)],
);

/** Identifier of a hospital patient: type is one of the spec's identifier types (IDENTIFIER_TYPES), or 'other'. */
export interface SourceIdentifier {
  type: 'medicalRecordId' | 'inpatientId' | 'outpatientId' | 'idCard' | 'other';
  system?: string;
  value: string;
}

/**
 * A patient a connection knows, matched to a subject by identifier (status 1 automatically, 2 by a site user) or
 * waiting in the matching queue (0), or dismissed (3: not in this study).
 */
export const sourcePatients = pgTable(
  'source_patients',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    connectionId: integer('connection_id')
      .notNull()
      .references(() => sourceConnections.id),
    /** the source's own patient key (FHIR Patient id, PID-3's first identifier, the SQL view's key) */
    patientKey: varchar('patient_key', { length: 200 }).notNull(),
    identifiers: jsonb('identifiers').$type<SourceIdentifier[]>().notNull().default([]),
    name: varchar('name', { length: 200 }),
    birthDate: date('birth_date', { mode: 'string' }),
    gender: varchar('gender', { length: 20 }),
    subjectId: integer('subject_id').references(() => subjects.id),
    status: smallint('status').notNull().default(0),
    matchedBy: integer('matched_by').references(() => users.id),
    matchedAt: ts('matched_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('source_patients_key').on(t.connectionId, t.patientKey),
    index('source_patients_queue').on(t.projectId, t.env, t.siteId, t.status),
    index('source_patients_subject').on(t.subjectId),
  ],
);

/**
 * One extraction: manual (addPtsTask), automatic (daily 12:00 in the visit window), scheduled, a file, or HL7.
 * Status 0 queued, 1 running, 2 done, 3 failed, 4 paused. At most one live (0/1) task per subject (unique index).
 */
export const sourceExtractTasks = pgTable(
  'source_extract_tasks',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id').references(() => sites.id),
    subjectId: integer('subject_id').references(() => subjects.id),
    connectionId: integer('connection_id').references(() => sourceConnections.id),
    trigger: varchar('trigger', { length: 10 }).$type<'manual' | 'auto' | 'schedule' | 'file' | 'hl7'>().notNull(),
    status: smallint('status').notNull().default(0),
    dateFrom: date('date_from', { mode: 'string' }),
    dateTo: date('date_to', { mode: 'string' }),
    /** counts: created, updated, unchanged, skipped (by reason), by document type */
    stats: jsonb('stats').$type<Record<string, unknown>>().notNull().default({}),
    errorCode: varchar('error_code', { length: 60 }),
    errorDetail: varchar('error_detail', { length: 1000 }),
    progressItemId: integer('progress_item_id'),
    jobId: varchar('job_id', { length: 64 }),
    createdBy: integer('created_by').references(() => users.id),
    createdAt: created(),
    startedAt: ts('started_at'),
    /** beaten every 30 s while a worker runs the task; an old one means its process died (ExtractService.recover) */
    heartbeatAt: ts('heartbeat_at'),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    uniqueIndex('source_extract_tasks_live')
      .on(t.subjectId)
      .where(sql`${t.subjectId} is not null and ${t.status} in (0, 1)`),
    index('source_extract_tasks_list').on(t.projectId, t.env, t.createdAt),
  ],
);

/**
 * A source record: one clinical fact from a hospital system, of one of the spec's 8 document types (1 course record,
 * 2 examination, 3 test, 4 doctor's advice, 5 pathology, 6 surgical information, 7 vital signs, 8 diagnostic
 * information), with its raw payload as it came (the FHIR resource's JSON, the HL7 segment group, the SQL row's JSON).
 * (connection, external id) is unique, so extraction is idempotent; a change at the hospital bumps `version` and
 * the previous state stays in source_record_versions. A result read from a source document's OCR text (raw_format 'ocr',
 * OCR association) has no connection nor source patient: it names its file and page region instead, and
 * (source_file_id, external_id) is unique.
 */
export const sourceRecords = pgTable(
  'source_records',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id').references(() => subjects.id),
    /** null only for a result read from a source document (source_file_id set; migration 0021 checks it) */
    sourcePatientId: integer('source_patient_id').references(() => sourcePatients.id),
    connectionId: integer('connection_id').references(() => sourceConnections.id),
    /** OCR association (issue 12 item 6): the source document the result was read from, and where on it */
    sourceFileId: integer('source_file_id').references(() => sourceFiles.id),
    region: jsonb('region').$type<{ page: number; x: number; y: number; width: number; height: number }>(),
    externalId: varchar('external_id', { length: 300 }).notNull(),
    docType: smallint('doc_type').notNull(),
    resourceType: varchar('resource_type', { length: 60 }).notNull(),
    codeSystem: varchar('code_system', { length: 200 }),
    code: varchar('code', { length: 100 }),
    display: varchar('display', { length: 500 }),
    valueNum: doublePrecision('value_num'),
    valueText: text('value_text'),
    unit: varchar('unit', { length: 60 }),
    effectiveAt: ts('effective_at'),
    /** the clinical date (in the hospital's terms) used for visit windows */
    effectiveDate: date('effective_date', { mode: 'string' }),
    status: varchar('status', { length: 30 }),
    contentHash: varchar('content_hash', { length: 64 }).notNull(),
    version: integer('version').notNull().default(1),
    rawFormat: varchar('raw_format', { length: 10 }).$type<'fhir' | 'hl7v2' | 'sql' | 'ocr'>().notNull(),
    raw: text('raw').notNull(),
    /**
     * A lab result's assessment (gradeLab), made when the record is written (modules/sources/lab-assessment.ts);
     * null for a record that is not a gradable result. lab_graded: the grader version that made it (null: never).
     */
    lab: jsonb('lab').$type<LabAssessment>(),
    /** the assessment's analyte (collation "C") and whether it is out of range: indexed with the subject (migration 0053) */
    labAnalyte: text('lab_analyte'),
    labOut: boolean('lab_out'),
    labGraded: smallint('lab_graded'),
    taskId: integer('task_id'),
    deletedAt: ts('deleted_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('source_records_key').on(t.connectionId, t.externalId),
    uniqueIndex('source_records_file_key')
      .on(t.sourceFileId, t.externalId)
      .where(sql`${t.sourceFileId} is not null`),
    // migration 0053 adds INCLUDE (id, version, deleted_at, lab_graded): the safety fingerprint reads it alone
    index('source_records_subject').on(t.subjectId, t.docType, t.effectiveDate),
    index('source_records_subject_code').on(t.subjectId, t.code),
    index('source_records_patient').on(t.sourcePatientId),
  ],
);

/** Every version of a source record (the first included): what changed at the hospital and when we saw it. */
export const sourceRecordVersions = pgTable(
  'source_record_versions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    recordId: bigint('record_id', { mode: 'number' })
      .notNull()
      .references(() => sourceRecords.id),
    version: integer('version').notNull(),
    changeKind: varchar('change_kind', { length: 10 }).$type<'created' | 'updated' | 'deleted'>().notNull(),
    contentHash: varchar('content_hash', { length: 64 }).notNull(),
    valueNum: doublePrecision('value_num'),
    valueText: text('value_text'),
    unit: varchar('unit', { length: 60 }),
    effectiveAt: ts('effective_at'),
    raw: text('raw').notNull(),
    taskId: integer('task_id'),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('source_record_versions_key').on(t.recordId, t.version),
    index('source_record_versions_task').on(t.taskId),
  ],
);

/**
 * Every HL7 v2 message the MLLP listener received, as bytes: status 1 stored (ACK AA), 2 dead letter (AE/AR with the
 * reason; an administrator can see and replay it), 3 replayed successfully, 0 received and not processed yet.
 */
export const hl7Messages = pgTable(
  'hl7_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    connectionId: integer('connection_id').references(() => sourceConnections.id),
    env: varchar('env', { length: 3 }),
    projectId: integer('project_id').references(() => projects.id),
    remote: varchar('remote', { length: 100 }),
    controlId: varchar('control_id', { length: 200 }),
    messageType: varchar('message_type', { length: 20 }),
    sendingApp: varchar('sending_app', { length: 200 }),
    sendingFacility: varchar('sending_facility', { length: 200 }),
    raw: bytea('raw').notNull(),
    status: smallint('status').notNull(),
    ackCode: varchar('ack_code', { length: 2 }),
    errorCode: varchar('error_code', { length: 60 }),
    errorDetail: varchar('error_detail', { length: 1000 }),
    records: integer('records').notNull().default(0),
    receivedAt: ts('received_at').notNull().defaultNow(),
    processedAt: ts('processed_at'),
    replayedBy: integer('replayed_by').references(() => users.id),
    replayedAt: ts('replayed_at'),
  },
  (t) => [index('hl7_messages_status').on(t.status, t.receivedAt), index('hl7_messages_project').on(t.projectId, t.env, t.receivedAt)],
);

/** A code a mapping rule matches: system (LOINC's URI, a local system, or none = any) and code. */
export interface MappingCode {
  system?: string;
  code: string;
}

/**
 * How one eCRF item of a design version is filled from source records: by code (with synonyms of the display text)
 * or by a FHIRPath expression on the raw resource; then unit conversion (UCUM) to `unit`, a visit-window selection
 * (nearest to the visit date, first, last, worst high/low; window only or not), and option mapping for coded items.
 */
export const mappingRules = pgTable(
  'mapping_rules',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    designVersionId: integer('design_version_id')
      .notNull()
      .references(() => designVersions.id, { onDelete: 'cascade' }),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id, { onDelete: 'cascade' }),
    variable: varchar('variable', { length: 40 }).notNull(),
    method: varchar('method', { length: 10 }).$type<'code' | 'fhirpath'>().notNull(),
    docTypes: smallint('doc_types').array().notNull().default(sql`'{}'::smallint[]`),
    codes: jsonb('codes').$type<MappingCode[]>().notNull().default([]),
    useSynonyms: boolean('use_synonyms').notNull().default(true),
    expression: text('expression'),
    unit: varchar('unit', { length: 60 }),
    selection: varchar('selection', { length: 10 }).$type<'nearest' | 'first' | 'last' | 'worst'>().notNull().default('nearest'),
    worst: varchar('worst', { length: 4 }).$type<'high' | 'low'>(),
    windowOnly: boolean('window_only').notNull().default(true),
    /** source code or text → option value of the item; a source appears at most once */
    optionMap: jsonb('option_map').$type<{ source: string; value: string }[]>().notNull().default([]),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('mapping_rules_item').on(t.formId, t.variable), index('mapping_rules_version').on(t.designVersionId)],
);

/**
 * Synonyms of a term (spec: /ocrConfig/same for OCR'd labels, /textConfig/same for source text): global when
 * project_id is null, else the project's own. The term is unique per scope and kind, case-insensitively (expression
 * index in migration 0015, not expressible here).
 */
export const synonyms = pgTable('synonyms', {
  id: serial('id').primaryKey(),
  projectId: integer('project_id').references(() => projects.id),
  kind: varchar('kind', { length: 4 }).$type<'ocr' | 'text'>().notNull(),
  term: varchar('term', { length: 100 }).notNull(),
  synonyms: varchar('synonyms', { length: 100 }).array().notNull().default(sql`'{}'::varchar[]`),
  version: integer('version').notNull().default(1),
  updatedBy: integer('updated_by').references(() => users.id),
  createdAt: created(),
  updatedAt: updated(),
});

/**
 * What a user (or an automatic run: 'inject') decided about one pre-fill candidate: 'new' (accepted into an empty
 * item), 'merge' (replaced a different value, with a reason), 'ignore' (left out; the same record version is not
 * offered again for that item).
 */
export const prefillDecisions = pgTable(
  'prefill_decisions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    visitId: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    unscheduledId: integer('unscheduled_id').notNull().default(0),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id),
    repeatNo: integer('repeat_no').notNull().default(1),
    variable: varchar('variable', { length: 40 }).notNull(),
    sourceRecordId: bigint('source_record_id', { mode: 'number' })
      .notNull()
      .references(() => sourceRecords.id),
    sourceVersion: integer('source_version').notNull(),
    /** the candidate value decided on, and the reason given for a merge over a different value */
    candidate: jsonb('candidate').$type<{ v: unknown; reason?: string }>(),
    decision: varchar('decision', { length: 8 }).$type<'new' | 'merge' | 'ignore' | 'inject'>().notNull(),
    userId: integer('user_id').references(() => users.id),
    createdAt: created(),
  },
  (t) => [index('prefill_decisions_item').on(t.subjectId, t.visitId, t.formId, t.variable)],
);

/** A project's pre-fill schedule per environment: from start to end date, daily, weekly (ISO weekdays) or monthly (days). */
export const prefillSchedules = pgTable(
  'prefill_schedules',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    frequency: varchar('frequency', { length: 8 }).$type<'daily' | 'weekly' | 'monthly'>().notNull(),
    days: smallint('days').array().notNull().default(sql`'{}'::smallint[]`),
    enabled: boolean('enabled').notNull().default(true),
    lastRunOn: date('last_run_on', { mode: 'string' }),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('prefill_schedules_project').on(t.projectId, t.env)],
);

/**
 * A source document (issue 12): an uploaded image or PDF of a subject, stored by content hash (FileStore), with its
 * automatically de-identified copy. Status: SOURCE_FILE_STATUS (0 automatic de-identification running, 1 waiting
 * submit, 2 waiting audit, 3 passed, -1 audit failed, -2 de-identification failed with error_code/error_detail);
 * user changes follow SOURCE_FILE_TRANSITIONS (packages/shared). `boxes` are the proposed redaction boxes (kind and
 * reason each), `ocr` the text read per region.
 */
export const sourceFiles = pgTable(
  'source_files',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    /** the subject's file; null for an ISF document (isfKindId, isfVersion; constraint source_files_owner) */
    subjectId: integer('subject_id').references(() => subjects.id),
    visitId: integer('visit_id').references(() => visits.id),
    /** SOURCE_DOC_TYPES 1..8; null for an ISF document */
    docType: smallint('doc_type'),
    fileName: varchar('file_name', { length: 255 }).notNull(),
    kind: varchar('kind', { length: 5 }).$type<'image' | 'pdf'>().notNull(),
    size: integer('size').notNull(),
    pages: integer('pages').notNull().default(1),
    /** sha256 hex of the original (FileStore key) */
    originalKey: varchar('original_key', { length: 64 }).notNull(),
    /** sha256 hex of the de-identified copy, once made */
    redactedKey: varchar('redacted_key', { length: 64 }),
    status: smallint('status').notNull().default(0),
    /** the audit-failed reason */
    reason: varchar('reason', { length: 500 }),
    errorCode: varchar('error_code', { length: 60 }),
    errorDetail: varchar('error_detail', { length: 1000 }),
    boxes: jsonb('boxes').$type<{ page: number; x: number; y: number; width: number; height: number; kind: string; reason: string }[]>().notNull().default([]),
    ocr: jsonb('ocr').$type<{ page: number; text: string; x: number; y: number; width: number; height: number }[]>().notNull().default([]),
    jobId: varchar('job_id', { length: 64 }),
    progressItemId: integer('progress_item_id'),
    /** beaten while a worker de-identifies the file; an old one means its process died (DocumentsJob.recover) */
    heartbeatAt: ts('heartbeat_at'),
    restarts: integer('restarts').notNull().default(0),
    version: integer('version').notNull().default(1),
    /** an ISF document's kind and its version (1, 2, … per kind and site), migration 0022 */
    isfKindId: integer('isf_kind_id').references((): AnyPgColumn => isfKinds.id),
    isfVersion: integer('isf_version'),
    createdBy: integer('created_by').references(() => users.id),
    updatedBy: integer('updated_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('source_files_subject').on(t.subjectId, t.status), index('source_files_scope').on(t.projectId, t.env, t.siteId)],
);

/**
 * PDF synthesis (issue 12): a subject's de-identified source pages combined into one PDF by a job. Status: 1 running,
 * 2 done (file_key in the file store), 3 failed (error_code). At most one running per subject (partial unique index).
 */
export const subjectPdfs = pgTable(
  'subject_pdfs',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    status: smallint('status').notNull().default(1),
    fileKey: varchar('file_key', { length: 64 }),
    /** source files combined */
    files: integer('files').notNull().default(0),
    /** pages in the PDF, and pages placed so far (progress) */
    pages: integer('pages').notNull().default(0),
    done: integer('done').notNull().default(0),
    errorCode: varchar('error_code', { length: 60 }),
    jobId: varchar('job_id', { length: 64 }),
    progressItemId: integer('progress_item_id'),
    heartbeatAt: ts('heartbeat_at'),
    createdBy: integer('created_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [index('subject_pdfs_subject').on(t.subjectId, t.createdAt)],
);

/**
 * A project's desensitization keywords per environment (issue 12, /project/ocrProConfig): words automatic
 * de-identification hides wherever they appear in a source document (packages/deid, case-insensitive for Latin
 * letters). Unique per project and environment in any letter case (expression index lower(keyword), migration 0020).
 */
export const deidKeywords = pgTable(
  'deid_keywords',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    keyword: varchar('keyword', { length: 100 }).notNull(),
    note: varchar('note', { length: 200 }),
    createdBy: integer('created_by').references(() => users.id),
    createdAt: created(),
  },
  (t) => [uniqueIndex('deid_keywords_word').on(t.projectId, t.env, sql`lower(${t.keyword})`)],
);

/**
 * A project's de-identification policy per environment (packages/deid DeidPolicy): which optional identifiers
 * automatic de-identification hides. No row = the defaults (DEFAULT_DEID_POLICY, the columns' defaults).
 */
export const deidPolicies = pgTable(
  'deid_policies',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    env: envCol(),
    maskBirthDates: boolean('mask_birth_dates').notNull().default(true),
    maskOtherDates: boolean('mask_other_dates').notNull().default(false),
    maskHospitalNames: boolean('mask_hospital_names').notNull().default(true),
    maskDoctorNames: boolean('mask_doctor_names').notNull().default(true),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    updatedAt: updated(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.env] })],
);

/**
 * The ISF's document kinds (issue 12 item 8, /project/researchFile): what a site must keep (required) or may keep,
 * per project and environment, for every site (siteIds null) or the listed ones. Removed kinds keep status 0 so their
 * uploaded versions stay readable in the audit trail. Unique by name in any letter case among live kinds (migration
 * 0022).
 */
export const isfKinds = pgTable('isf_kinds', {
  id: serial('id').primaryKey(),
  env: envCol(),
  projectId: integer('project_id')
    .notNull()
    .references(() => projects.id),
  name: varchar('name', { length: 100 }).notNull(),
  nameEn: varchar('name_en', { length: 100 }),
  required: boolean('required').notNull().default(true),
  siteIds: integer('site_ids').array(),
  sort: integer('sort').notNull().default(0),
  status: smallint('status').notNull().default(1),
  version: integer('version').notNull().default(1),
  createdBy: integer('created_by').references(() => users.id),
  updatedBy: integer('updated_by').references(() => users.id),
  createdAt: created(),
  updatedAt: updated(),
});

/**
 * Queries (issue 13, /project/doubtList): a question on an item (instance + variable), a form (instance), a visit or a
 * subject. origin 'manual' (text) or 'auto' (rule + params, raised by a save whose value broke a soft rule, closed
 * automatically when the value is corrected). Status QUERY_STATUS 1 querying, 2 replied, 3 closed. Migration 0023.
 */
export const queries = pgTable(
  'queries',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    visitId: integer('visit_id').references(() => visits.id),
    unscheduledId: integer('unscheduled_id').notNull().default(0),
    formId: integer('form_id').references(() => forms.id),
    repeatNo: integer('repeat_no').notNull().default(1),
    instanceId: integer('instance_id').references(() => crfInstances.id),
    variable: varchar('variable', { length: 40 }),
    origin: varchar('origin', { length: 6 }).$type<'manual' | 'auto'>().notNull().default('manual'),
    rule: varchar('rule', { length: 30 }),
    params: jsonb('params').$type<Record<string, string | number>>(),
    text: varchar('text', { length: 1000 }),
    status: smallint('status').notNull().default(1),
    version: integer('version').notNull().default(1),
    createdBy: integer('created_by').references(() => users.id),
    updatedBy: integer('updated_by').references(() => users.id),
    closedBy: integer('closed_by').references(() => users.id),
    closedAt: ts('closed_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    index('queries_scope').on(t.projectId, t.env, t.status, t.siteId),
    index('queries_instance').on(t.instanceId, t.variable),
    index('queries_subject').on(t.subjectId, t.status),
    // the list's page in its order (status tab, newest change first; migration 0029)
    index('queries_list').on(t.projectId, t.env, t.status, t.updatedAt, t.id),
  ],
);

/**
 * How many queries each project × environment × site × status × origin has, whatever their subject's state (the
 * list subtracts those of subjects in the recycle bin), kept by statement triggers on queries (migration 0029), so
 * that a list page filtered by those alone gets its total from a few rows instead of counting queries.
 */
export const queryCounts = pgTable(
  'query_counts',
  {
    projectId: integer('project_id').notNull(),
    env: envCol(),
    siteId: integer('site_id').notNull(),
    status: smallint('status').notNull(),
    origin: varchar('origin', { length: 6 }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ name: 'query_counts_pk', columns: [t.projectId, t.env, t.siteId, t.status, t.origin] })],
);

/** The thread of a query: raise, reply (with the value change it made, if any), close, reopen, autoClose. */
export const queryMessages = pgTable(
  'query_messages',
  {
    id: serial('id').primaryKey(),
    queryId: integer('query_id')
      .notNull()
      .references(() => queries.id),
    action: varchar('action', { length: 10 }).$type<'raise' | 'reply' | 'close' | 'reopen' | 'autoClose'>().notNull(),
    text: varchar('text', { length: 1000 }),
    oldValue: jsonb('old_value').$type<{ v: unknown }>(),
    newValue: jsonb('new_value').$type<{ v: unknown }>(),
    userId: integer('user_id').references(() => users.id),
    userName: varchar('user_name', { length: 50 }),
    createdAt: created(),
  },
  (t) => [index('query_messages_query').on(t.queryId, t.id)],
);

/**
 * SDV and SDR marks (issue 13, /project/verification; migration 0024): SDV on an item (variable), SDR on a form
 * (variable null). Status 1 active, 0 removed (reason), 2 lost (the value changed after it was verified).
 */
export const verificationMarks = pgTable(
  'verification_marks',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    instanceId: integer('instance_id')
      .notNull()
      .references(() => crfInstances.id),
    variable: varchar('variable', { length: 40 }),
    kind: varchar('kind', { length: 3 }).$type<'sdv' | 'sdr'>().notNull(),
    /** the value verified (SDV) */
    value: jsonb('value').$type<{ v: unknown }>(),
    status: smallint('status').notNull().default(1),
    reason: varchar('reason', { length: 500 }),
    markedBy: integer('marked_by').references(() => users.id),
    markedAt: ts('marked_at').notNull().defaultNow(),
    endedBy: integer('ended_by').references(() => users.id),
    endedAt: ts('ended_at'),
  },
  (t) => [
    index('verification_marks_scope').on(t.projectId, t.env, t.siteId, t.status),
    // a form's marks by kind and state (SDV progress; migration 0029)
    index('verification_marks_instance').on(t.instanceId, t.kind, t.status),
  ],
);

/**
 * The SDV progress of each completed, not deleted form instance (migration 0029): items holding a value, active SDV
 * marks, items whose mark was lost and not verified again, an active SDR mark, any active or lost SDV mark, and the
 * form's SDV bucket (abs(hashtext('sdv:' || id)) % 100, as the verification service's requiredSql). Recomputed by
 * triggers after every statement that changes an instance, its values or its marks.
 */
export const verificationProgress = pgTable(
  'verification_progress',
  {
    instanceId: integer('instance_id').primaryKey(),
    subjectId: integer('subject_id').notNull(),
    projectId: integer('project_id').notNull(),
    env: envCol(),
    siteId: integer('site_id').notNull(),
    visitId: integer('visit_id').notNull(),
    bucket: smallint('bucket').notNull(),
    items: integer('items').notNull(),
    verified: integer('verified').notNull(),
    lost: integer('lost').notNull(),
    reviewed: boolean('reviewed').notNull(),
    marked: boolean('marked').notNull(),
  },
  (t) => [index('verification_progress_subject').on(t.subjectId)],
);

/**
 * The SDV list's totals (migration 0029): forms, items and verified items of live subjects' completed forms per
 * project × environment × subject's site (scope) × form's site × visit × subject's own risk level (0: its site's) ×
 * bucket × marked × done (verified ≥ items) × lost (> 0), kept by the triggers that keep verification_progress and
 * by one on subjects (site, risk level, deletion).
 */
export const verificationCounts = pgTable(
  'verification_counts',
  {
    projectId: integer('project_id').notNull(),
    env: envCol(),
    scopeSiteId: integer('scope_site_id').notNull(),
    siteId: integer('site_id').notNull(),
    visitId: integer('visit_id').notNull(),
    subjectRisk: smallint('subject_risk').notNull(),
    bucket: smallint('bucket').notNull(),
    marked: boolean('marked').notNull(),
    done: boolean('done').notNull(),
    lost: boolean('lost').notNull(),
    forms: integer('forms').notNull(),
    items: bigint('items', { mode: 'number' }).notNull(),
    verified: bigint('verified', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({
      name: 'verification_counts_pk',
      columns: [t.projectId, t.env, t.scopeSiteId, t.siteId, t.visitId, t.subjectRisk, t.bucket, t.marked, t.done, t.lost],
    }),
  ],
);

/** Files attached to eCRF file items (POST /common/upload; migration 0025): the value names one as `upl:<id>:<name>`. */
export const uploads = pgTable('uploads', {
  id: serial('id').primaryKey(),
  env: envCol(),
  projectId: integer('project_id')
    .notNull()
    .references(() => projects.id),
  fileKey: varchar('file_key', { length: 64 }).notNull(),
  name: varchar('name', { length: 255 }).notNull(),
  kind: varchar('kind', { length: 5 }).$type<'image' | 'pdf'>().notNull(),
  size: integer('size').notNull(),
  createdBy: integer('created_by').references(() => users.id),
  createdAt: created(),
});

// ---- dictionaries (issue 13 item 5; migration 0026) ----

/**
 * One imported version of a drug, diagnosis, surgery or examination code list. At most one active version per kind
 * (partial unique index); the version label is unique per kind in any letter case (expression index in 0026).
 */
export const dictionaries = pgTable('dictionaries', {
  id: serial('id').primaryKey(),
  kind: varchar('kind', { length: 12 }).$type<'drug' | 'diagnosis' | 'surgery' | 'examination'>().notNull(),
  version: varchar('version', { length: 50 }).notNull(),
  name: varchar('name', { length: 100 }).notNull(),
  /** where the list comes from and under which licence */
  source: varchar('source', { length: 500 }),
  termCount: integer('term_count').notNull().default(0),
  active: boolean('active').notNull().default(false),
  createdBy: integer('created_by').references(() => users.id),
  createdAt: created(),
  activatedBy: integer('activated_by').references(() => users.id),
  activatedAt: ts('activated_at'),
});

/** A term of a dictionary version; the code is unique per version in any letter case (expression index in 0026). */
export const dictionaryTerms = pgTable(
  'dictionary_terms',
  {
    id: serial('id').primaryKey(),
    dictionaryId: integer('dictionary_id')
      .notNull()
      .references(() => dictionaries.id, { onDelete: 'cascade' }),
    /** the row of the imported file */
    rowNo: integer('row_no').notNull(),
    code: varchar('code', { length: 50 }).notNull(),
    termZh: varchar('term_zh', { length: 200 }),
    termEn: varchar('term_en', { length: 300 }),
    synonyms: varchar('synonyms', { length: 200 }).array().notNull().default(sql`'{}'::varchar[]`),
    /** normalised code, terms and synonyms, one per line (contains-match fallback, list filter) */
    search: text('search').notNull(),
  },
  (t) => [index('dictionary_terms_row').on(t.dictionaryId, t.rowNo)],
);

/**
 * The search keys of a term, normalised (NFKC, lower case): kind 1 code, 2 zh term, 3 en term, 4 synonym, 5 pinyin
 * initials, 6 full pinyin, 7 a later word of the en term onwards; `syn` names the synonym a key comes from. Every
 * match is one prefix range of the (dictionary_id, kind, key text_pattern_ops) index of migration 0026.
 */
export const dictionaryKeys = pgTable('dictionary_keys', {
  // derived rows written only with their terms: no foreign keys (their per-row checks would dominate an import)
  dictionaryId: integer('dictionary_id').notNull(),
  termId: integer('term_id').notNull(),
  kind: smallint('kind').notNull(),
  syn: smallint('syn'),
  key: text('key').notNull(),
});

// ---- safety candidates and judgements (issue 13 items 3, 4; migration 0027) ----

/**
 * A candidate for AE / CM / PR / MH / HISS judgement, generated from a subject's source records (or a flagged eCRF
 * value): unique per subject, category and generator key, so that generating again updates it. Status 1 to judge,
 * 2 judged yes (written into the category's log form: written_instance_id, or not_written says why not), 3 judged no.
 */
export const safetyCandidates = pgTable(
  'safety_candidates',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    category: varchar('category', { length: 4 }).$type<'ae' | 'cm' | 'pr' | 'mh' | 'hiss'>().notNull(),
    origin: varchar('origin', { length: 10 }).$type<'lab' | 'diagnosis' | 'medication' | 'procedure' | 'ecrf'>().notNull(),
    key: varchar('key', { length: 200 }).notNull(),
    term: varchar('term', { length: 300 }).notNull(),
    code: varchar('code', { length: 100 }),
    codeSystem: varchar('code_system', { length: 200 }),
    suggested: jsonb('suggested').$type<{ code: string; term: string } | null>(),
    startDate: varchar('start_date', { length: 10 }),
    endDate: varchar('end_date', { length: 10 }),
    grade: smallint('grade'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    /** what defines the generated content: a changed hash after a judgement sets source_changed */
    contentHash: varchar('content_hash', { length: 64 }).notNull(),
    status: smallint('status').notNull().default(1),
    version: integer('version').notNull().default(1),
    sourceChanged: boolean('source_changed').notNull().default(false),
    fields: jsonb('fields').$type<Record<string, unknown> | null>(),
    reason: varchar('reason', { length: 500 }),
    judgedBy: integer('judged_by').references(() => users.id),
    judgedAt: ts('judged_at'),
    writtenInstanceId: integer('written_instance_id').references(() => crfInstances.id),
    notWritten: varchar('not_written', { length: 40 }),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('safety_candidates_key').on(t.subjectId, t.category, t.key),
    index('safety_candidates_list').on(t.projectId, t.env, t.status, t.category, t.startDate),
  ],
);

/** The source records a candidate links to: found by the generator, or linked by a reviewer. */
export const safetyCandidateSources = pgTable(
  'safety_candidate_sources',
  {
    candidateId: bigint('candidate_id', { mode: 'number' })
      .notNull()
      .references(() => safetyCandidates.id, { onDelete: 'cascade' }),
    recordId: bigint('record_id', { mode: 'number' })
      .notNull()
      .references(() => sourceRecords.id),
    link: varchar('link', { length: 10 }).$type<'generated' | 'linked'>().notNull().default('generated'),
    createdBy: integer('created_by').references(() => users.id),
  },
  (t) => [primaryKey({ columns: [t.candidateId, t.recordId] }), index('safety_candidate_sources_record').on(t.recordId)],
);

/** What a subject's candidates were last generated from: an unchanged fingerprint skips the generation. */
export const safetyGeneration = pgTable('safety_generation', {
  subjectId: integer('subject_id')
    .primaryKey()
    .references(() => subjects.id),
  fingerprint: varchar('fingerprint', { length: 64 }).notNull(),
  generatedAt: ts('generated_at').notNull().defaultNow(),
});

/** Every judgement of a candidate (the first and each change, with its reason). */
export const safetyJudgements = pgTable(
  'safety_judgements',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    candidateId: bigint('candidate_id', { mode: 'number' })
      .notNull()
      .references(() => safetyCandidates.id, { onDelete: 'cascade' }),
    decision: varchar('decision', { length: 3 }).$type<'yes' | 'no'>().notNull(),
    fields: jsonb('fields').$type<Record<string, unknown> | null>(),
    reason: varchar('reason', { length: 500 }),
    userId: integer('user_id').references(() => users.id),
    userName: varchar('user_name', { length: 50 }),
    createdAt: created(),
  },
  (t) => [index('safety_judgements_candidate').on(t.candidateId)],
);

// ---- end of issue 13 sections ----

/**
 * A file generated by a job and downloaded when ready (issue 14 items 6 and 7; migration 0030): a casebook PDF now,
 * study exports later. Status queued → running → done (file_key in the file store, size, sha256) | failed (error: a
 * catalogue key). At most one queued or running per user × project × env × kind × scope_key (partial unique index);
 * deleted files keep their row (deleted_at).
 */
export const exportFiles = pgTable(
  'export_files',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    /** the site whose data it holds (null: several sites, e.g. a study export) */
    siteId: integer('site_id').references(() => sites.id),
    subjectId: integer('subject_id').references(() => subjects.id),
    kind: varchar('kind', { length: 30 }).notNull(),
    params: jsonb('params').$type<Record<string, unknown>>().notNull(),
    /** what one-at-a-time is counted over, per kind (a casebook: 'subject:<id>') */
    scopeKey: varchar('scope_key', { length: 60 }).notNull(),
    title: varchar('title', { length: 200 }).notNull(),
    fileName: varchar('file_name', { length: 200 }).notNull(),
    status: varchar('status', { length: 10 }).$type<'queued' | 'running' | 'done' | 'failed'>().notNull().default('queued'),
    progress: smallint('progress').notNull().default(0),
    done: integer('done').notNull().default(0),
    total: integer('total').notNull().default(0),
    fileKey: varchar('file_key', { length: 64 }),
    size: bigint('size', { mode: 'number' }),
    sha256: varchar('sha256', { length: 64 }),
    error: varchar('error', { length: 200 }),
    jobId: varchar('job_id', { length: 64 }),
    progressItemId: integer('progress_item_id'),
    heartbeatAt: ts('heartbeat_at'),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: created(),
    finishedAt: ts('finished_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('export_files_owner').on(t.createdBy, t.projectId, t.env, t.createdAt),
    uniqueIndex('export_files_live').on(t.createdBy, t.projectId, t.env, t.kind, t.scopeKey).where(sql`${t.status} in ('queued', 'running')`),
    check('export_files_status', sql`${t.status} in ('queued', 'running', 'done', 'failed')`),
    check('export_files_progress', sql`${t.progress} between 0 and 100`),
  ],
);

/**
 * The EDC a project environment syncs to (issue 14; spec §4 supported kinds 1 and 3): its kind, address, the
 * secret (encrypted with the connection secret key, never returned), and the item list last read from it
 * (getEDCItemList). One per project × environment.
 */
export const edcConfigs = pgTable(
  'edc_configs',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    kind: smallint('kind').notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    baseUrl: varchar('base_url', { length: 500 }).notNull(),
    /** kind 1: the study OID at the target */
    studyOid: varchar('study_oid', { length: 100 }),
    /** kind 1: the target's environment name (Rave "Prod", "UAT" …) */
    targetEnv: varchar('target_env', { length: 50 }),
    secretEnc: text('secret_enc').notNull(),
    timeoutMs: integer('timeout_ms').notNull().default(30_000),
    /** automatic sync: null (off), 'hourly' or 'daily' */
    schedule: varchar('schedule', { length: 10 }),
    lastScheduledAt: ts('last_scheduled_at'),
    enabled: boolean('enabled').notNull().default(true),
    targetItems: jsonb('target_items').$type<unknown[]>(),
    targetItemsAt: ts('target_items_at'),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('edc_configs_project_env').on(t.projectId, t.env), check('edc_configs_kind', sql`${t.kind} in (1, 3)`)],
);

/**
 * The EDC mapping of one design version (spec §3 "EDC mappings"): our visit → the target's event, our form → its
 * form, our item (form code.variable) → its item (and item group), with our option values → its codes.
 */
export const edcMappings = pgTable(
  'edc_mappings',
  {
    id: serial('id').primaryKey(),
    configId: integer('config_id')
      .notNull()
      .references(() => edcConfigs.id, { onDelete: 'cascade' }),
    designVersionId: integer('design_version_id')
      .notNull()
      .references(() => designVersions.id, { onDelete: 'cascade' }),
    level: varchar('level', { length: 5 }).$type<'event' | 'form' | 'item'>().notNull(),
    /** visit code | form code | form code.variable */
    localKey: varchar('local_key', { length: 100 }).notNull(),
    target: varchar('target', { length: 100 }).notNull(),
    /** items: the target's item group (kind 1) */
    targetGroup: varchar('target_group', { length: 100 }),
    /** items with options: our value → the target's code (absent: the option's own mapping, else its value) */
    valueMap: jsonb('value_map').$type<Record<string, string>>(),
    updatedBy: integer('updated_by').references(() => users.id),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('edc_mappings_key').on(t.configId, t.designVersionId, t.level, t.localKey),
    check('edc_mappings_level', sql`${t.level} in ('event', 'form', 'item')`),
  ],
);

/** One sync: of a subject, a site or the study; who started it (or the schedule), its counts and state. */
export const edcSyncRuns = pgTable(
  'edc_sync_runs',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    configId: integer('config_id')
      .notNull()
      .references(() => edcConfigs.id, { onDelete: 'cascade' }),
    scope: varchar('scope', { length: 7 }).$type<'subject' | 'site' | 'study'>().notNull(),
    /** the subject or site synced (null: the study) */
    scopeId: integer('scope_id'),
    /** the sites the starter reached (null: all), so a job syncs no more than they could see */
    siteIds: integer('site_ids').array(),
    trigger: varchar('trigger', { length: 8 }).$type<'manual' | 'schedule'>().notNull(),
    /** EDC_SYNC_STATUS: 0 pending, 1 syncing, 2 synced, 3 sync failed (some record failed or the target failed) */
    status: smallint('status').notNull().default(0),
    counts: jsonb('counts').$type<{ subjects: number; records: number; sent: number; synced: number; failed: number; conflicts: number; unchanged: number; removed?: number }>(),
    error: varchar('error', { length: 500 }),
    startedBy: integer('started_by').references(() => users.id),
    startedByName: varchar('started_by_name', { length: 50 }),
    /** the EDC account the run used: the starter's linked login (edc_user_links); null = the service account */
    edcAccount: varchar('edc_account', { length: 100 }),
    progressItemId: integer('progress_item_id'),
    jobId: varchar('job_id', { length: 64 }),
    createdAt: created(),
    finishedAt: ts('finished_at'),
  },
  (t) => [index('edc_sync_runs_project').on(t.projectId, t.env, t.createdAt)],
);

/**
 * The sync state of one eCRF form instance at the EDC: pending, syncing, synced or failed with the target's reason;
 * the hash and values last accepted by the target (only changes are sent again; a value changed at the target since
 * is a conflict).
 */
export const edcSyncRecords = pgTable(
  'edc_sync_records',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    configId: integer('config_id')
      .notNull()
      .references(() => edcConfigs.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    instanceId: integer('instance_id')
      .notNull()
      .references(() => crfInstances.id),
    status: smallint('status').notNull().default(0),
    sentHash: varchar('sent_hash', { length: 64 }),
    /** target item → the value the target accepted last */
    sentValues: jsonb('sent_values').$type<Record<string, string | null>>(),
    reason: varchar('reason', { length: 1000 }),
    attempts: integer('attempts').notNull().default(0),
    lastRunId: integer('last_run_id'),
    syncedAt: ts('synced_at'),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('edc_sync_records_instance').on(t.configId, t.instanceId),
    index('edc_sync_records_site').on(t.projectId, t.env, t.siteId, t.status),
    index('edc_sync_records_subject').on(t.subjectId),
    check('edc_sync_records_status', sql`${t.status} between 0 and 3`),
  ],
);

/** The EDC log (spec §7 /edcLog/*): every record sent or refused, every conflict and failure, with what came back. */
export const edcLogs = pgTable(
  'edc_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    runId: integer('run_id')
      .notNull()
      .references(() => edcSyncRuns.id, { onDelete: 'cascade' }),
    siteId: integer('site_id').references(() => sites.id),
    subjectId: integer('subject_id').references(() => subjects.id),
    instanceId: integer('instance_id').references(() => crfInstances.id),
    ptsNo: varchar('pts_no', { length: 30 }),
    /** the visit's and form's names when logged (the design's; what getDataNameList offers a Chinese reader) */
    dataName: varchar('data_name', { length: 200 }),
    /** the same in English when the design has English names (an English reader's; null: data_name is shown) */
    dataNameEn: varchar('data_name_en', { length: 200 }),
    /** 'sent' | 'removed' | 'refused' | 'conflict' | 'error' */
    action: varchar('action', { length: 10 }).notNull(),
    /** 2 success, 3 failed */
    status: smallint('status').notNull(),
    /** item changes sent: target item, our item's label (zh; localEn when the design has it), old (last accepted) → new */
    changes: jsonb('changes').$type<{ item: string; local: string; localEn?: string; old: string | null; new: string | null }[]>(),
    reason: varchar('reason', { length: 1000 }),
    httpStatus: integer('http_status'),
    request: text('request'),
    response: text('response'),
    createdBy: integer('created_by').references(() => users.id),
    createdByName: varchar('created_by_name', { length: 50 }),
    createdAt: created(),
  },
  (t) => [index('edc_logs_project').on(t.projectId, t.env, t.createdAt), index('edc_logs_run').on(t.runId), index('edc_logs_subject').on(t.subjectId)],
);

/**
 * Associate EDC (/edc-link): a centre user's own account at a project environment's EDC. The syncs they start use
 * it, so the EDC's audit trail names the person; scheduled syncs and users without a link use the configuration's
 * service account. The secret (kind 1 the password, kind 3 the API token) is encrypted with the connection secret
 * key and never returned, logged or audited; it is saved only after the EDC accepted it (verified_at).
 */
export const edcUserLinks = pgTable(
  'edc_user_links',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    configId: integer('config_id')
      .notNull()
      .references(() => edcConfigs.id, { onDelete: 'cascade' }),
    /** the user's login name at the EDC (kind 1: the HTTP Basic user; kind 3: their REDCap user name) */
    login: varchar('login', { length: 100 }).notNull(),
    secretEnc: text('secret_enc').notNull(),
    verifiedAt: ts('verified_at'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('edc_user_links_user_config').on(t.userId, t.configId)],
);

/**
 * Verification codes of the phone change (issue 15 item 1; migration 0036): only a salted SHA-256 of the code is kept.
 * A code ends when used, replaced by a newer one, spent by wrong entries or not delivered. The rows also count the
 * requests per number and per account (rate limits).
 */
export const phoneCodes = pgTable(
  'phone_codes',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    phone: varchar('phone', { length: 20 }).notNull(),
    purpose: varchar('purpose', { length: 20 }).notNull().default('bindPhone'),
    salt: varchar('salt', { length: 32 }).notNull(),
    codeHash: varchar('code_hash', { length: 64 }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    endedAt: ts('ended_at'),
    /** replaced, locked (too many wrong entries) or undelivered */
    endReason: varchar('end_reason', { length: 20 }),
    ip: varchar('ip', { length: 64 }),
    createdAt: created(),
  },
  (t) => [index('phone_codes_user_created').on(t.userId, t.createdAt), index('phone_codes_phone_created').on(t.phone, t.createdAt)],
);

/** The development SMS provider's messages (SMS_PROVIDER=outbox), read by administrators on /system/smsOutbox. */
export const smsOutbox = pgTable(
  'sms_outbox',
  {
    id: serial('id').primaryKey(),
    phone: varchar('phone', { length: 20 }).notNull(),
    template: varchar('template', { length: 40 }).notNull(),
    body: text('body').notNull(),
    language: varchar('language', { length: 5 }).notNull(),
    userId: integer('user_id').references(() => users.id),
    createdAt: created(),
  },
  (t) => [index('sms_outbox_phone').on(t.phone, t.id)],
);

/**
 * Feedback (issue 15 item 5; migration 0038): what a user sent from the user menu — category, text, the page they were
 * on (path only) and an optional screenshot in the file store (checked by content, re-encoded without metadata). `env`
 * is the sender's environment when they sent it: the answers reach them as messages there. `version` grows with every
 * answer, close and reopen (stale actions are refused naming updated_by).
 */
export const feedback = pgTable(
  'feedback',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    env: envCol(),
    loginType: smallint('login_type'),
    category: varchar('category', { length: 20 }).$type<'bug' | 'suggestion' | 'question' | 'other'>().notNull(),
    content: text('content').notNull(),
    pagePath: varchar('page_path', { length: 500 }),
    language: varchar('language', { length: 5 }).notNull(),
    userAgent: varchar('user_agent', { length: 300 }),
    screenshotKey: varchar('screenshot_key', { length: 64 }),
    screenshotType: varchar('screenshot_type', { length: 20 }),
    screenshotSize: integer('screenshot_size'),
    status: varchar('status', { length: 10 }).$type<'open' | 'answered' | 'closed'>().notNull().default('open'),
    version: integer('version').notNull().default(1),
    createdAt: created(),
    updatedAt: updated(),
    updatedBy: integer('updated_by').references(() => users.id),
  },
  (t) => [
    index('feedback_user_created').on(t.userId, t.createdAt),
    index('feedback_created').on(t.createdAt),
    index('feedback_status_created').on(t.status, t.createdAt),
    check('feedback_category', sql`${t.category} in ('bug', 'suggestion', 'question', 'other')`),
    check('feedback_status', sql`${t.status} in ('open', 'answered', 'closed')`),
    check('feedback_content_length', sql`char_length(${t.content}) between 1 and 2000`),
  ],
);

/** The thread of a feedback: answers (each also a message to the sender), closes with their note, reopens. */
export const feedbackReplies = pgTable(
  'feedback_replies',
  {
    id: serial('id').primaryKey(),
    feedbackId: integer('feedback_id')
      .notNull()
      .references(() => feedback.id),
    kind: varchar('kind', { length: 10 }).$type<'answer' | 'close' | 'reopen'>().notNull(),
    content: text('content'),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** the message the sender received (answers and closes) */
    messageId: integer('message_id').references(() => messages.id),
    createdAt: created(),
  },
  (t) => [index('feedback_replies_feedback').on(t.feedbackId, t.id), check('feedback_replies_kind', sql`${t.kind} in ('answer', 'close', 'reopen')`)],
);

/** Settings an administrator keeps in the product (issue 15 item 3): `hosts` (getConfig), `adminInfo` (/admin/info/*). */
export const systemSettings = pgTable('system_settings', {
  key: varchar('key', { length: 40 }).primaryKey(),
  value: jsonb('value').notNull(),
  lockVersion: integer('lock_version').notNull().default(1),
  updatedBy: integer('updated_by').references(() => users.id),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The e-consent system a project environment lists its consented participants from (issue 15 item 7, migration 0043):
 * 'dev' the deterministic development provider, 'http' the documented HTTP adapter (secret encrypted, never returned).
 */
export const ecConfigs = pgTable(
  'ec_configs',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    kind: varchar('kind', { length: 10 }).$type<'dev' | 'http'>().notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    baseUrl: varchar('base_url', { length: 500 }),
    studyCode: varchar('study_code', { length: 100 }),
    secretEnc: text('secret_enc'),
    timeoutMs: integer('timeout_ms').notNull().default(15_000),
    enabled: boolean('enabled').notNull().default(true),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('ec_configs_project_env').on(t.projectId, t.env), check('ec_configs_kind', sql`${t.kind} in ('dev', 'http')`)],
);

/** A participant of the e-consent system added as a subject: once per project × env; its consent date and version. */
export const ecSubjectLinks = pgTable(
  'ec_subject_links',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    participantId: varchar('participant_id', { length: 64 }).notNull(),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    screeningNo: varchar('screening_no', { length: 40 }).notNull(),
    siteCode: varchar('site_code', { length: 20 }).notNull(),
    consentDate: date('consent_date', { mode: 'string' }).notNull(),
    consentVersion: varchar('consent_version', { length: 50 }),
    providerKind: varchar('provider_kind', { length: 10 }).notNull(),
    createdBy: integer('created_by').references(() => users.id),
    createdAt: created(),
  },
  (t) => [uniqueIndex('ec_subject_links_participant').on(t.projectId, t.env, t.participantId), uniqueIndex('ec_subject_links_subject').on(t.subjectId)],
);

/**
 * A shared-form link (issue 15 item 6, migration 0042): one form of one subject's visit, filled once by the participant
 * without an account before `expiresAt`. The code is never stored: its SHA-256 (lookup) and a copy encrypted with the
 * server's secret key (for its creator to copy again). `status` 'expired' is written lazily; `review` follows the
 * participant's submit (pending until a site user accepts or corrects the form).
 */
export const ddcShareLinks = pgTable(
  'ddc_share_links',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id),
    subjectId: integer('subject_id')
      .notNull()
      .references(() => subjects.id),
    visitId: integer('visit_id')
      .notNull()
      .references(() => visits.id),
    unscheduledId: integer('unscheduled_id').notNull().default(0),
    formId: integer('form_id')
      .notNull()
      .references(() => forms.id),
    repeatNo: integer('repeat_no').notNull().default(1),
    codeHash: varchar('code_hash', { length: 64 }).notNull(),
    codeEnc: varchar('code_enc', { length: 200 }).notNull(),
    note: varchar('note', { length: 200 }),
    status: varchar('status', { length: 10 }).$type<'active' | 'used' | 'expired' | 'revoked'>().notNull().default('active'),
    expiresAt: ts('expires_at').notNull(),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: created(),
    openCount: integer('open_count').notNull().default(0),
    lastOpenedAt: ts('last_opened_at'),
    usedAt: ts('used_at'),
    instanceId: integer('instance_id').references((): AnyPgColumn => crfInstances.id),
    revokedBy: integer('revoked_by').references(() => users.id),
    revokedAt: ts('revoked_at'),
    revokeReason: varchar('revoke_reason', { length: 500 }),
    review: varchar('review', { length: 10 }).$type<'pending' | 'accepted' | 'corrected'>(),
    reviewedBy: integer('reviewed_by').references(() => users.id),
    reviewedAt: ts('reviewed_at'),
  },
  (t) => [
    uniqueIndex('ddc_share_links_code').on(t.codeHash),
    uniqueIndex('ddc_share_links_live')
      .on(t.subjectId, t.visitId, t.unscheduledId, t.formId, t.repeatNo)
      .where(sql`status = 'active'`),
    index('ddc_share_links_project').on(t.projectId, t.env, t.createdAt),
    index('ddc_share_links_subject').on(t.subjectId),
    check('ddc_share_links_status', sql`${t.status} in ('active', 'used', 'expired', 'revoked')`),
    check('ddc_share_links_review', sql`${t.review} is null or ${t.review} in ('pending', 'accepted', 'corrected')`),
  ],
);

/**
 * /project/microCrfConfig ('crf': what the shared form shows) and /project/microDCConfig ('dc': which forms may be
 * shared and for how long), per project and environment (migration 0042); `settings` as packages/shared validates it.
 */
export const microConfigs = pgTable(
  'micro_configs',
  {
    id: serial('id').primaryKey(),
    env: envCol(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    kind: varchar('kind', { length: 3 }).$type<'crf' | 'dc'>().notNull(),
    settings: jsonb('settings').notNull(),
    version: integer('version').notNull().default(1),
    updatedBy: integer('updated_by').references(() => users.id),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('micro_configs_key').on(t.projectId, t.env, t.kind), check('micro_configs_kind', sql`${t.kind} in ('crf', 'dc')`)],
);

/**
 * Face login (issue 15 item 2; migration 0041): WebAuthn passkeys of platform authenticators (Face ID, Windows Hello,
 * Android face unlock). The public key (COSE, base64url) and the signature counter; `user_handle` is the random
 * WebAuthn user id the authenticator keeps (never the database id), shared by a user's passkeys.
 */
export const webauthnCredentials = pgTable(
  'webauthn_credentials',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** base64url credential id as the authenticator gave it */
    credentialId: varchar('credential_id', { length: 1364 }).notNull(),
    userHandle: varchar('user_handle', { length: 64 }).notNull(),
    /** COSE public key, base64url */
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array().notNull().default(sql`'{}'::text[]`),
    deviceType: varchar('device_type', { length: 20 }).$type<'singleDevice' | 'multiDevice'>().notNull(),
    backedUp: boolean('backed_up').notNull().default(false),
    aaguid: varchar('aaguid', { length: 36 }),
    deviceName: varchar('device_name', { length: 50 }).notNull(),
    createdAt: created(),
    lastUsedAt: ts('last_used_at'),
    lastUsedIp: varchar('last_used_ip', { length: 64 }),
  },
  (t) => [uniqueIndex('webauthn_credentials_credential').on(t.credentialId), index('webauthn_credentials_user').on(t.userId)],
);

/**
 * WebAuthn challenges (migration 0041): random, kept server-side (several processes share them), good for
 * FACE_LOGIN.challengeSeconds and used once (`used_at` is set by the one statement that takes it). A registration
 * challenge belongs to the enrolling user; a login challenge may be bound to the account typed on the login page.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    id: uuid('id').primaryKey(),
    purpose: varchar('purpose', { length: 10 }).$type<'login' | 'register'>().notNull(),
    challenge: varchar('challenge', { length: 100 }).notNull(),
    userId: integer('user_id').references(() => users.id),
    /** register: the WebAuthn user id (base64url) the options gave the authenticator */
    userHandle: varchar('user_handle', { length: 64 }),
    /** login: the account named on the login page, lower case */
    accountKey: varchar('account_key', { length: 100 }),
    rpId: varchar('rp_id', { length: 253 }).notNull(),
    /** the origins the answer may come from (the configured ones, or the request's own) */
    origins: text('origins').array().notNull(),
    ip: varchar('ip', { length: 64 }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: created(),
  },
  (t) => [
    index('webauthn_challenges_expires').on(t.expiresAt),
    check('webauthn_challenges_purpose', sql`${t.purpose} in ('login', 'register')`),
    check('webauthn_challenges_register_user', sql`${t.purpose} <> 'register' or ${t.userId} is not null`),
  ],
);

/**
 * The result of a user's real-name verification (issue 15 item 2; migration 0041), one row per user: the verified
 * name, the ID number masked and as HMAC-SHA256 under a server key (never in clear), the provider and when.
 * `id_hmac` is unique: one ID number is verified on one account.
 */
export const userRealNames = pgTable(
  'user_real_names',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id),
    name: varchar('name', { length: 50 }).notNull(),
    idHmac: varchar('id_hmac', { length: 64 }).notNull(),
    idMasked: varchar('id_masked', { length: 18 }).notNull(),
    provider: varchar('provider', { length: 20 }).notNull(),
    /** the provider's reference for the check, when it gives one */
    providerRef: varchar('provider_ref', { length: 100 }),
    verifiedAt: ts('verified_at').notNull(),
  },
  (t) => [uniqueIndex('user_real_names_id_hmac').on(t.idHmac)],
);

/** Every real-name check a user asked for (migration 0041): its outcome, for the daily limit and the record. */
export const realNameChecks = pgTable(
  'real_name_checks',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    provider: varchar('provider', { length: 20 }).notNull(),
    idHmac: varchar('id_hmac', { length: 64 }).notNull(),
    idMasked: varchar('id_masked', { length: 18 }).notNull(),
    /** pending (asked, no answer yet), match, mismatch, taken, error */
    outcome: varchar('outcome', { length: 10 }).notNull(),
    reason: varchar('reason', { length: 200 }),
    ip: varchar('ip', { length: 64 }),
    createdAt: created(),
  },
  (t) => [index('real_name_checks_user_created').on(t.userId, t.createdAt)],
);
