/**
 * How audit rows are shown (screens and exports), never how they are stored:
 *
 * - identifiers (subject medical record / inpatient / outpatient numbers and ID card, user ID numbers, the
 *   subject list's identifier filter) are masked with the subject list's `maskIdentifier` unless the viewer holds
 *   `patient:identifier:query`. Masking goes by FIELD NAME wherever the name appears: the row's field, keys inside
 *   JSON values and reasons (export filters), and the subject's current identifiers wherever their text appears
 *   in a value or reason — never by the event name, so a new event that carries identifiers is masked too;
 * - each row is enriched for a reader: subject number, site, visit and form names, the item label from the design
 *   version, option labels instead of codes, names instead of ids, machine reasons as catalogue messages.
 */
import { eq, inArray } from 'drizzle-orm';
import {
  formFields,
  maskIdentifier,
  type AuditDisplay,
  type AuditLogRow,
  type FieldComponent,
  type FormComponent,
  type Language,
} from '@esource/shared';
import type { Db } from '../../db/client';
import type { auditEvents } from '../../db/schema';
import {
  crfInstances,
  departments,
  designVersions,
  forms,
  organizations,
  permissionGroups,
  projectMembers,
  projects,
  roles,
  sites,
  stages,
  subjects,
  users,
  visits,
} from '../../db/schema';
import { translator } from '../../lib/i18n';
import { changesOf } from './audit.service';

type Stored = typeof auditEvents.$inferSelect;

/** Field names whose values identify a person. Checked in the row's field and in keys of JSON values. */
export const IDENTIFIER_FIELDS: ReadonlySet<string> = new Set([
  'medicalRecordId',
  'inpatientId',
  'outpatientId',
  'idCard',
  'idNumber',
  // the subject list's identifier search (stored in subject.export's filters)
  'identifier',
]);

/** Reasons the server stores as plain words, shown as catalogue messages. */
const MACHINE_REASONS: Record<string, string> = {
  import: 'auditView.reasons.import',
  'hidden by display condition': 'auditView.reasons.hiddenByCondition',
  hiddenByCondition: 'auditView.reasons.hiddenByCondition',
  'ecrf.hiddenByCondition': 'auditView.reasons.hiddenByCondition',
  disabled: 'auditView.reasons.disabled',
  'bad password': 'auditView.reasons.badPassword',
  locked: 'auditView.reasons.locked',
  'initial password issued': 'auditView.reasons.initialPassword',
};

/**
 * Messages other modules store in a reason as `[<message in the writer's language>] <typed reason>` (the eCRF's
 * "cleared by a display condition"): recognised in either language (or as the bare key) and shown in the viewer's,
 * with our own wording where the catalogue has none yet.
 */
const STORED_MESSAGES: Record<string, string> = {
  'ecrf.clearedByCondition': 'auditView.reasons.hiddenByCondition',
};

/** A stored reason in the viewer's language: machine words and stored messages become catalogue messages. */
export function readableReason(reason: string | null, lang: Language): string | null {
  if (reason === null || reason === '') return reason;
  const t = translator(lang);
  const exact = MACHINE_REASONS[reason];
  if (exact) return t(exact);
  for (const [key, fallback] of Object.entries(STORED_MESSAGES)) {
    const forms = new Set([
      key,
      translator('zh_CN')(key),
      translator('en_US')(key),
      translator('zh_CN')(fallback),
      translator('en_US')(fallback),
    ]);
    for (const f of forms) {
      if (reason.startsWith(`[${f}]`)) {
        const label = t(key, { defaultValue: '' }) || t(fallback);
        const shown = label === key ? t(fallback) : label;
        const rest = reason.slice(f.length + 2).trim();
        return rest ? `${shown}: ${rest}` : shown;
      }
    }
  }
  return reason;
}

export interface AuditViewer {
  language: Language;
  /** the permissions the route was checked against */
  pms: ReadonlySet<string>;
}

/** Whether the viewer sees identifiers in full: the subject list's rule. */
export const seesIdentifiers = (v: AuditViewer) => v.pms.has('patient:identifier:query');

function maskDeep(v: unknown, underIdentifier: boolean): unknown {
  if (typeof v === 'string') return underIdentifier ? maskIdentifier(v) : v;
  if (typeof v === 'number' && underIdentifier) return maskIdentifier(String(v));
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, underIdentifier));
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, maskDeep(x, underIdentifier || IDENTIFIER_FIELDS.has(k))]),
    );
  }
  return v;
}

/**
 * A stored text as a viewer without `patient:identifier:query` may see it: fully masked under an identifier field,
 * identifier keys masked inside JSON, and the known identifier values masked wherever they occur.
 */
export function maskAuditText(
  text: string | null,
  field: string | null,
  known: readonly string[],
): string | null {
  if (text === null || text === '') return text;
  if (field && IDENTIFIER_FIELDS.has(field)) return maskIdentifier(text);
  let out = text;
  if (/^\s*[[{]/.test(out)) {
    try {
      const parsed: unknown = JSON.parse(out);
      const masked = JSON.stringify(maskDeep(parsed, false));
      if (masked !== JSON.stringify(parsed)) out = masked;
    } catch {
      // not JSON: left as it is
    }
  }
  for (const k of known)
    if (k.length >= 4 && out.includes(k)) out = out.split(k).join(maskIdentifier(k) ?? '');
  return out;
}

const ids = (list: (number | null | undefined)[]) => [
  ...new Set(list.filter((x): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0)),
];
const num = (s: string | null | undefined) => (s && /^\d{1,9}$/.test(s) ? Number(s) : null);
const idList = (s: string | null | undefined) => (s ? s.split(',').map((x) => num(x.trim())) : []);

/** Which lookup a field's values name, by field name. */
const REFERENCE_FIELDS: Record<
  string,
  'site' | 'org' | 'dept' | 'group' | 'role' | 'user' | 'stage' | 'form'
> = {
  siteId: 'site',
  orgId: 'org',
  deptId: 'dept',
  permissionGroupId: 'group',
  systemRoleId: 'role',
  roleId: 'role',
  reviewerUserId: 'user',
  piUserId: 'user',
  userId: 'user',
  stageId: 'stage',
  forms: 'form',
  formIds: 'form',
};
/** Which lookup an entity id names, by entity. */
const ENTITY_LOOKUP: Record<
  string,
  | 'site'
  | 'org'
  | 'dept'
  | 'group'
  | 'role'
  | 'user'
  | 'stage'
  | 'form'
  | 'visit'
  | 'project'
  | 'version'
  | 'member'
> = {
  organization: 'org',
  department: 'dept',
  permissionGroup: 'group',
  role: 'role',
  user: 'user',
  site: 'site',
  stage: 'stage',
  form: 'form',
  visit: 'visit',
  project: 'project',
  version: 'version',
  member: 'member',
};
const ENABLED_STATUS_ENTITIES = new Set([
  'user',
  'organization',
  'department',
  'role',
  'permissionGroup',
  'member',
]);

/** Rows as a reader sees them: masked where the viewer may not see identifiers, and enriched (see the file head). */
export async function presentAuditRows(
  db: Db,
  viewer: AuditViewer,
  stored: Stored[],
): Promise<AuditLogRow[]> {
  const t = translator(viewer.language);
  const en = viewer.language === 'en_US';
  const full = seesIdentifiers(viewer);
  const pick = (zh: string, english: string | null | undefined) => (en && english ? english : zh);

  // ── what the rows name, loaded one statement per kind ──
  const want = {
    site: [] as (number | null)[],
    org: [] as (number | null)[],
    dept: [] as (number | null)[],
    group: [] as (number | null)[],
    role: [] as (number | null)[],
    user: [] as (number | null)[],
    stage: [] as (number | null)[],
    form: [] as (number | null)[],
    visit: [] as (number | null)[],
    project: [] as (number | null)[],
    version: [] as (number | null)[],
    member: [] as (number | null)[],
  };
  const instanceIds: (number | null)[] = [];
  for (const r of stored) {
    want.site.push(r.siteId);
    const eid = num(r.entityId);
    const kind = ENTITY_LOOKUP[r.entity];
    if (kind) want[kind].push(eid);
    if (r.entity === 'crf_value' || r.entity === 'crf_instance') instanceIds.push(eid);
    const ref = r.field ? REFERENCE_FIELDS[r.field] : undefined;
    if (ref) want[ref].push(...idList(r.oldValue), ...idList(r.newValue));
  }
  const inst = ids(instanceIds).length
    ? await db
        .select({
          id: crfInstances.id,
          visitId: crfInstances.visitId,
          formId: crfInstances.formId,
          repeatNo: crfInstances.repeatNo,
        })
        .from(crfInstances)
        .where(inArray(crfInstances.id, ids(instanceIds)))
    : [];
  for (const i of inst) {
    want.visit.push(i.visitId);
    want.form.push(i.formId);
  }
  const load = async <T extends { id: number }>(
    list: (number | null)[],
    q: (idl: number[]) => Promise<T[]>,
  ) => {
    const l = ids(list);
    return new Map((l.length ? await q(l) : []).map((x) => [x.id, x]));
  };
  const [subj, site, org, dept, group, role, user, stage, form, visit, project, version, member] =
    await Promise.all([
      load(
        stored.map((r) => r.subjectId),
        (l) =>
          db
            .select({
              id: subjects.id,
              ptsNo: subjects.ptsNo,
              a: subjects.medicalRecordId,
              b: subjects.inpatientId,
              c: subjects.outpatientId,
              d: subjects.idCard,
            })
            .from(subjects)
            .where(inArray(subjects.id, l)),
      ),
      load(want.site, (l) =>
        db.select({ id: sites.id, name: sites.name }).from(sites).where(inArray(sites.id, l)),
      ),
      load(want.org, (l) =>
        db
          .select({ id: organizations.id, name: organizations.name })
          .from(organizations)
          .where(inArray(organizations.id, l)),
      ),
      load(want.dept, (l) =>
        db
          .select({ id: departments.id, name: departments.name })
          .from(departments)
          .where(inArray(departments.id, l)),
      ),
      load(want.group, (l) =>
        db
          .select({ id: permissionGroups.id, name: permissionGroups.name })
          .from(permissionGroups)
          .where(inArray(permissionGroups.id, l)),
      ),
      load(want.role, (l) =>
        db
          .select({ id: roles.id, name: roles.name, nameEn: roles.nameEn })
          .from(roles)
          .where(inArray(roles.id, l)),
      ),
      load(want.user, (l) =>
        db
          .select({ id: users.id, name: users.name, account: users.account, idNumber: users.idNumber })
          .from(users)
          .where(inArray(users.id, l)),
      ),
      load(want.stage, (l) =>
        db.select({ id: stages.id, name: stages.name }).from(stages).where(inArray(stages.id, l)),
      ),
      load(want.form, (l) =>
        db
          .select({ id: forms.id, name: forms.name, nameEn: forms.nameEn, definition: forms.definition })
          .from(forms)
          .where(inArray(forms.id, l)),
      ),
      load(want.visit, (l) =>
        db
          .select({ id: visits.id, name: visits.name, nameEn: visits.nameEn })
          .from(visits)
          .where(inArray(visits.id, l)),
      ),
      load(want.project, (l) =>
        db.select({ id: projects.id, name: projects.name }).from(projects).where(inArray(projects.id, l)),
      ),
      load(want.version, (l) =>
        db
          .select({ id: designVersions.id, name: designVersions.name })
          .from(designVersions)
          .where(inArray(designVersions.id, l)),
      ),
      load(want.member, (l) =>
        db
          .select({ id: projectMembers.id, name: users.name })
          .from(projectMembers)
          .innerJoin(users, eq(users.id, projectMembers.userId))
          .where(inArray(projectMembers.id, l)),
      ),
    ]);
  const instById = new Map(inst.map((i) => [i.id, i]));
  const fieldsOfForm = new Map<number, Map<string, FieldComponent>>();
  const itemOf = (formId: number, variable: string): FieldComponent | undefined => {
    let m = fieldsOfForm.get(formId);
    if (!m) {
      const def = form.get(formId)?.definition as { components?: FormComponent[] } | undefined;
      m = new Map(formFields(def?.components ?? []).map((f) => [f.variable, f]));
      fieldsOfForm.set(formId, m);
    }
    return m.get(variable);
  };
  const nameOf = (kind: keyof typeof want, id: number | null): string | null => {
    if (id === null) return null;
    switch (kind) {
      case 'site':
        return site.get(id)?.name ?? null;
      case 'org':
        return org.get(id)?.name ?? null;
      case 'dept':
        return dept.get(id)?.name ?? null;
      case 'group':
        return group.get(id)?.name ?? null;
      case 'role': {
        const x = role.get(id);
        return x ? pick(x.name, x.nameEn) : null;
      }
      case 'user': {
        const x = user.get(id);
        return x ? `${x.name} (${x.account})` : null;
      }
      case 'stage':
        return stage.get(id)?.name ?? null;
      case 'form': {
        const x = form.get(id);
        return x ? pick(x.name, x.nameEn) : null;
      }
      case 'visit': {
        const x = visit.get(id);
        return x ? pick(x.name, x.nameEn) : null;
      }
      case 'project':
        return project.get(id)?.name ?? null;
      case 'version':
        return version.get(id)?.name ?? null;
      case 'member':
        return member.get(id)?.name ?? null;
    }
  };

  return stored.map((r) => {
    // identifiers this row may carry as text: its subject's, or the ID number of the user it concerns
    const known: string[] = [];
    const s = r.subjectId ? subj.get(r.subjectId) : undefined;
    if (s) for (const v of [s.a, s.b, s.c, s.d]) if (v) known.push(v);
    if (r.entity === 'user') {
      const u = user.get(num(r.entityId) ?? -1);
      if (u?.idNumber) known.push(u.idNumber);
    }
    const mask = (text: string | null) => (full ? text : maskAuditText(text, r.field, known));
    const oldValue = mask(r.oldValue);
    const newValue = mask(r.newValue);
    const reasonRaw = full ? r.reason : maskAuditText(r.reason, null, known);

    const i =
      r.entity === 'crf_value' || r.entity === 'crf_instance'
        ? instById.get(num(r.entityId) ?? -1)
        : undefined;
    const item = i && r.entity === 'crf_value' && r.field ? itemOf(i.formId, r.field) : undefined;
    const readableAs = (field: string | null, item: FieldComponent | undefined) => (v: string | null): string | null => {
      if (v === null || v === '') return v;
      if (field && IDENTIFIER_FIELDS.has(field)) return v;
      if (item) return itemValue(item, v, en);
      if (field === 'status') {
        if (r.entity === 'subject') return t(`subjectStatus.${v}`, { defaultValue: v });
        if (r.entity === 'crf_instance') return t(`auditView.crfStatus.${v}`, { defaultValue: v });
        if (ENABLED_STATUS_ENTITIES.has(r.entity)) return t(`auditView.enabled.${v}`, { defaultValue: v });
      }
      const ref = field ? REFERENCE_FIELDS[field] : undefined;
      if (ref) {
        const parts = idList(v);
        if (parts.length && parts.every((p) => p !== null))
          return parts.map((p) => nameOf(ref, p) ?? `#${p}`).join(', ');
      }
      if (v === 'true' || v === 'false') return t(`auditView.bool.${v}`);
      if (MACHINE_REASONS[v]) return t(MACHINE_REASONS[v]);
      return v;
    };
    const readable = readableAs(r.field, item);
    // a field's label: the item's from the design version, else the catalogue's
    const fieldLabelOf = (field: string, it: FieldComponent | undefined) =>
      it ? pick(it.label, it.labelEn) : t(`auditView.fields.${field}`, { defaultValue: field });
    // an action's item changes (one event for a form's batch save, migration 0048): each masked and read as a
    // single-field row's value would be, its label from the instance's design version
    const changes = changesOf(r.changes)?.map((c) => {
      const cItem = i ? itemOf(i.formId, c.field) : undefined;
      const raw = full
        ? c
        : {
            ...c,
            oldValue: maskAuditText(c.oldValue, c.field, known),
            newValue: maskAuditText(c.newValue, c.field, known),
            reason: maskAuditText(c.reason, null, known),
          };
      const shown = readableAs(c.field, cItem);
      return {
        raw,
        display: {
          field: fieldLabelOf(c.field, cItem),
          oldValue: shown(raw.oldValue),
          newValue: shown(raw.newValue),
          reason: readableReason(raw.reason, viewer.language),
        },
      };
    }) ?? null;
    const fieldLabel = r.field ? fieldLabelOf(r.field, item) : null;
    const reason = readableReason(reasonRaw, viewer.language);
    const kind = ENTITY_LOOKUP[r.entity];
    const target =
      kind && kind !== 'site' && kind !== 'visit' && kind !== 'form' ? nameOf(kind, num(r.entityId)) : null;
    const display: AuditDisplay = {
      event: t(`auditActions.${r.action}`, { defaultValue: r.action }),
      subject: s?.ptsNo ?? null,
      site: nameOf('site', r.siteId) ?? (kind === 'site' ? nameOf('site', num(r.entityId)) : null),
      visit: i ? nameOf('visit', i.visitId) : kind === 'visit' ? nameOf('visit', num(r.entityId)) : null,
      form: i
        ? `${nameOf('form', i.formId) ?? ''}${i.repeatNo > 1 ? ` #${i.repeatNo}` : ''}` || null
        : kind === 'form'
          ? nameOf('form', num(r.entityId))
          : null,
      entity: t(`entities.${r.entity}`, {
        defaultValue: t(`auditView.entities.${r.entity}`, { defaultValue: r.entity }),
      }),
      target,
      field: fieldLabel,
      oldValue: readable(oldValue),
      newValue: readable(newValue),
      reason,
      changes: changes?.map((c) => c.display) ?? null,
    };
    const { createdAt, chainKey: _c, hash: _h, prevHash: _p, ...rest } = r;
    // the machine actors (no user): background jobs and a shared form's participant, named in the reader's language
    const userName =
      rest.userId === null && (rest.userName === 'system' || rest.userName === 'participant')
        ? t(`audit.actors.${rest.userName}`)
        : rest.userName;
    return {
      ...rest,
      userName,
      oldValue,
      newValue,
      reason: reasonRaw,
      createTime: createdAt.toISOString(),
      changes: changes?.map((c) => c.raw) ?? null,
      display,
    };
  });
}

/** An eCRF value as the form shows it: option labels for choice items (lists joined), the unit after numbers. */
function itemValue(item: FieldComponent, v: string, en: boolean): string {
  const label = (code: string) => {
    const o = item.options?.find((x) => x.value === code);
    return o ? (en && o.labelEn ? o.labelEn : o.label) : code;
  };
  if (item.options?.length) {
    if (v.startsWith('[')) {
      try {
        const list: unknown = JSON.parse(v);
        if (Array.isArray(list)) return list.map((x) => label(String(x))).join(', ');
      } catch {
        // not a list
      }
    }
    return label(v);
  }
  return item.unit && item.type === 'number' ? `${v} ${item.unit}` : v;
}
