/**
 * What a casebook prints, read in a handful of statements: the subject, its project, site and design version, the
 * visits in plan order (each unscheduled visit once per occurrence the subject had, by date), each visit's forms in
 * their order, and for a filled casebook every form instance (repeats numbered) with its values, who set them, its
 * item history and its signatures (certifications and their withdrawals, from the audit trail, which holds the
 * signature manifest each signer was shown).
 */
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { visitWindow, type FormDefinition } from '@esource/shared';
import type { Db } from '../../../db/client';
import {
  auditEvents,
  crfInstances,
  crfValueHistory,
  crfValues,
  designVersions,
  forms,
  projects,
  sites,
  subjects,
  subjectUnscheduledVisits,
  users,
  visitForms,
  visits,
} from '../../../db/schema';

export interface CasebookValue {
  value: unknown;
  entryMode: number;
  quality: string | null;
  updatedBy: string | null;
  updatedAt: Date;
}

export interface CasebookHistoryRow {
  variable: string;
  oldValue: unknown;
  newValue: unknown;
  entryMode: number;
  reason: string | null;
  cause: string | null;
  userName: string | null;
  at: Date;
}

export interface CasebookSignature {
  action: 'certify' | 'uncertify';
  userName: string | null;
  at: Date;
  /** the manifest as recorded (signer, account, meaning), and a withdrawal's reason */
  text: string | null;
}

export interface CasebookInstance {
  id: number;
  repeatNo: number;
  status: number;
  certifiedBy: string | null;
  certifiedAt: Date | null;
  updatedBy: string | null;
  updatedAt: Date;
  values: Map<string, CasebookValue>;
  history: CasebookHistoryRow[];
  signatures: CasebookSignature[];
}

export interface CasebookForm {
  formId: number;
  code: string;
  name: string;
  nameEn: string | null;
  definition: FormDefinition;
  /** filled casebook: the instances in repeat order (none = not started); blank: empty */
  instances: CasebookInstance[];
}

export interface CasebookVisit {
  visitId: number;
  unscheduledId: number;
  code: string;
  name: string;
  nameEn: string | null;
  unscheduled: boolean;
  /** planned date (scheduled) or the occurrence's date (unscheduled); null in a blank casebook's unscheduled visit */
  date: string | null;
  window: { start: string; end: string } | null;
  label: string | null;
  forms: CasebookForm[];
}

export interface CasebookData {
  project: { no: string; name: string; timezone: string };
  site: { no: string; name: string };
  subject: { id: number; ptsNo: string; initials: string | null; status: number; firstVisitDate: string };
  version: { versionNo: number; name: string } | null;
  visits: CasebookVisit[];
}

export interface CasebookSelection {
  mode: 'blank' | 'filled';
  history: boolean;
  signatures: boolean;
  visitIds: readonly number[];
  formIds: readonly number[];
}

/** The casebook's content for a subject already checked to be in the caller's scope. */
export async function loadCasebook(db: Db, subjectId: number, sel: CasebookSelection): Promise<CasebookData> {
  const [head] = await db
    .select({ s: subjects, p: projects, site: sites, v: designVersions })
    .from(subjects)
    .innerJoin(projects, eq(projects.id, subjects.projectId))
    .innerJoin(sites, eq(sites.id, subjects.siteId))
    .leftJoin(designVersions, eq(designVersions.id, subjects.designVersionId))
    .where(eq(subjects.id, subjectId));
  if (!head) throw new Error(`subject ${subjectId} is gone`);
  const { s, p, site, v } = head;
  const data: CasebookData = {
    project: { no: p.no, name: p.name, timezone: p.timezone },
    site: { no: site.siteNo, name: site.name },
    subject: {
      id: s.id,
      ptsNo: s.ptsNo,
      initials: s.initials,
      status: s.status,
      firstVisitDate: s.firstVisitDate,
    },
    version: v ? { versionNo: v.versionNo, name: v.name } : null,
    visits: [],
  };
  if (!v) return data;

  const planned = (
    await db
      .select()
      .from(visits)
      .where(eq(visits.versionId, v.id))
      .orderBy(asc(visits.sortOrder), asc(visits.dayOffset), asc(visits.id))
  ).filter((x) => sel.visitIds.length === 0 || sel.visitIds.includes(x.id));
  if (planned.length === 0) return data;
  const links = (
    await db
      .select({ visitId: visitForms.visitId, f: forms })
      .from(visitForms)
      .innerJoin(forms, eq(forms.id, visitForms.formId))
      .where(
        inArray(
          visitForms.visitId,
          planned.map((x) => x.id),
        ),
      )
      .orderBy(asc(visitForms.sortOrder), asc(forms.sortOrder), asc(forms.id))
  ).filter((l) => sel.formIds.length === 0 || sel.formIds.includes(l.f.id));
  const occurrences = await db
    .select()
    .from(subjectUnscheduledVisits)
    .where(eq(subjectUnscheduledVisits.subjectId, s.id))
    .orderBy(asc(subjectUnscheduledVisits.visitDate), asc(subjectUnscheduledVisits.id));

  const filled = sel.mode === 'filled';
  const byKey = new Map<string, CasebookInstance[]>();
  if (filled) {
    const insts = await db
      .select({ i: crfInstances, updatedBy: users.name })
      .from(crfInstances)
      .leftJoin(users, eq(users.id, crfInstances.updatedBy))
      .where(and(eq(crfInstances.subjectId, s.id), isNull(crfInstances.deletedAt)))
      .orderBy(asc(crfInstances.repeatNo));
    const certifiers = new Map<number, string>();
    const certIds = [...new Set(insts.map((r) => r.i.certifiedBy).filter((x): x is number => x !== null))];
    if (certIds.length)
      for (const u of await db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(inArray(users.id, certIds)))
        certifiers.set(u.id, u.name);
    const byId = new Map<number, CasebookInstance>();
    for (const { i, updatedBy } of insts) {
      const inst: CasebookInstance = {
        id: i.id,
        repeatNo: i.repeatNo,
        status: i.status,
        certifiedBy: i.certifiedBy ? (certifiers.get(i.certifiedBy) ?? null) : null,
        certifiedAt: i.certifiedAt,
        updatedBy,
        updatedAt: i.updatedAt,
        values: new Map(),
        history: [],
        signatures: [],
      };
      byId.set(i.id, inst);
      const key = `${i.visitId}:${i.unscheduledId}:${i.formId}`;
      byKey.set(key, [...(byKey.get(key) ?? []), inst]);
    }
    const ids = [...byId.keys()];
    if (ids.length) {
      // (in slices: a bound-parameter list stays well below the protocol's limit whatever the subject's size)
      for (let k = 0; k < ids.length; k += 1000) {
        const slice = ids.slice(k, k + 1000);
        const vals = await db
          .select({ v: crfValues, name: users.name })
          .from(crfValues)
          .leftJoin(users, eq(users.id, crfValues.updatedBy))
          .where(inArray(crfValues.instanceId, slice));
        for (const { v: x, name } of vals)
          byId.get(x.instanceId)!.values.set(x.variable, {
            value: x.value?.v ?? null,
            entryMode: x.entryMode,
            quality: x.quality,
            updatedBy: name,
            updatedAt: x.updatedAt,
          });
        if (sel.history) {
          const hist = await db
            .select()
            .from(crfValueHistory)
            .where(inArray(crfValueHistory.instanceId, slice))
            .orderBy(asc(crfValueHistory.id));
          for (const h of hist)
            byId.get(h.instanceId)!.history.push({
              variable: h.variable,
              oldValue: h.oldValue?.v ?? null,
              newValue: h.newValue?.v ?? null,
              entryMode: h.entryMode,
              reason: h.reason,
              cause: h.cause,
              userName: h.userName,
              at: h.createdAt,
            });
        }
      }
      if (sel.signatures) {
        const events = await db
          .select({
            action: auditEvents.action,
            entityId: auditEvents.entityId,
            userName: auditEvents.userName,
            at: auditEvents.createdAt,
            reason: auditEvents.reason,
          })
          .from(auditEvents)
          .where(
            and(
              eq(auditEvents.projectId, p.id),
              eq(auditEvents.subjectId, s.id),
              eq(auditEvents.entity, 'crf_instance'),
              inArray(auditEvents.action, ['crf.certify', 'crf.uncertify']),
            ),
          )
          .orderBy(asc(auditEvents.id));
        for (const e of events) {
          const inst = byId.get(Number(e.entityId));
          if (inst)
            inst.signatures.push({
              action: e.action === 'crf.certify' ? 'certify' : 'uncertify',
              userName: e.userName,
              at: e.at,
              text: e.reason,
            });
        }
      }
    }
  }

  const formsOf = (visitId: number, unscheduledId: number): CasebookForm[] =>
    links
      .filter((l) => l.visitId === visitId)
      .map(({ f }) => ({
        formId: f.id,
        code: f.code,
        name: f.name,
        nameEn: f.nameEn,
        definition: f.definition as unknown as FormDefinition,
        instances: filled ? (byKey.get(`${visitId}:${unscheduledId}:${f.id}`) ?? []) : [],
      }));
  for (const pv of planned) {
    const base = {
      visitId: pv.id,
      code: pv.code,
      name: pv.name,
      nameEn: pv.nameEn,
      unscheduled: pv.unscheduled,
    };
    if (!pv.unscheduled) {
      const w = visitWindow(s.firstVisitDate, pv);
      data.visits.push({
        ...base,
        unscheduledId: 0,
        date: w.planned,
        window: { start: w.start, end: w.end },
        label: null,
        forms: formsOf(pv.id, 0),
      });
    } else if (!filled) {
      // a blank casebook shows an unscheduled visit's forms once, to be copied for each occurrence
      data.visits.push({
        ...base,
        unscheduledId: 0,
        date: null,
        window: null,
        label: null,
        forms: formsOf(pv.id, 0),
      });
    } else {
      for (const o of occurrences.filter((x) => x.visitId === pv.id))
        data.visits.push({
          ...base,
          unscheduledId: o.id,
          date: o.visitDate,
          window: null,
          label: o.label || null,
          forms: formsOf(pv.id, o.id),
        });
    }
  }
  return data;
}

/** The forms a casebook prints (a cycle form's repeats each count), for progress: done/total. */
export function casebookUnits(data: CasebookData): number {
  return data.visits.reduce(
    (n, v) => n + v.forms.reduce((m, f) => m + Math.max(1, f.instances.length), 0),
    0,
  );
}
