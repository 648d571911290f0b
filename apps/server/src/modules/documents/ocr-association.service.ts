/**
 * OCR association (issue 12 item 6; spec §7 /kbms/ai/kbmsCrfRules): the lab results read from a source document's
 * OCR text (packages/interop lab-results) are matched to eCRF items through the project's mapping rules and
 * synonyms — a result's name, its Chinese or its Latin part equal to one of a rule's codes, the item's labels or a
 * synonym of them (global and project synonyms, OCR and text kinds) — and kept as source records (raw format 'ocr')
 * of the file's subject. The pre-fill review then offers them like the hospital's data (same rules, UCUM conversion,
 * visit window, new / merge / ignore); an accepted one is saved with entry mode KBMS 4 and source_ref
 * 'source:<recordId>:v<version>', and the record names the file and the page region it was read from.
 *
 * What must always hold:
 * - Idempotent: one record per (file, region, item code); running again stores nothing new, a changed result (other
 *   visit, other synonyms) bumps its version, and a result no longer proposed is withdrawn (soft-deleted, versioned).
 * - The record carries the rule's code (system and code) when the rule has codes, so the pre-fill engine matches it
 *   by code whether or not the rule also matches display texts; a rule without codes matches it by the name read.
 * - The visit: the one chosen (a file without visit nor readable date), else the file's, else the scheduled visit
 *   whose window holds the report's date. The record's date is the report date when it lies in that visit's window,
 *   else the visit's planned date; with neither, no date (the review offers it only to rules not bound to a window).
 * - Scope and rights: the file must be in the caller's scope and past automatic de-identification (status ≥ 1).
 */
import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  formFields,
  latestClock,
  fileRegionRef,
  visitWindow,
  type FieldComponent,
  type FormDefinition,
  type OcrAssociationResult,
  type OcrProposal,
  type ocrAssociationRequest,
} from '@esource/shared';
import {
  coerce,
  matchRecords,
  parseLabResults,
  readReportDate,
  RecordIndex,
  type LabCandidate,
  type MappingRecord,
} from '@esource/interop';
import type { Db } from '../../db/client';
import {
  designVersions,
  forms,
  mappingRules,
  sourceFiles,
  sourceRecords,
  sourceRecordVersions,
  subjects,
  visits,
} from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';
import { projectZone, ruleOf, synonymIndex, type RuleRow } from '../prefill/prefill-engine';
import { sourceFileScope } from './documents.service';
import { labColumns } from '../sources/lab-assessment';

type Input = z.output<typeof ocrAssociationRequest>;
type VisitRow = typeof visits.$inferSelect;
type FormInfo = {
  id: number;
  code: string;
  name: string;
  nameEn: string | null;
  fields: Map<string, FieldComponent>;
};

const norm = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A record this run wants: one per result and item code. */
interface Wanted {
  externalId: string;
  candidate: LabCandidate;
  rules: RuleRow[];
  codeSystem: string | null;
  code: string | null;
  display: string;
  raw: string;
  hash: string;
}

export class OcrAssociationService {
  private readonly subjects: SubjectsService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
  }

  /** POST /kbms/ai/kbmsCrfRules */
  async associate(ctx: ProjectScopedContext, input: Input): Promise<OcrAssociationResult> {
    const t = translator(ctx.language);
    const [row] = await this.db
      .select({ f: sourceFiles, s: subjects })
      .from(sourceFiles)
      .innerJoin(subjects, eq(subjects.id, sourceFiles.subjectId))
      .where(
        and(eq(sourceFiles.id, input.fileId), sourceFileScope(this.subjects, ctx)),
      );
    if (!row) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    const { f: file, s: subject } = row;
    // a subject's file always has its document type (constraint source_files_owner)
    const docType = file.docType;
    if (docType === null) throw new AppError('NOT_FOUND', { entity: 'sourceFile' });
    if (file.status < 1) throw new AppError('DOCUMENT_NOT_READY');

    // ── the visit and the date the records carry ──
    const scheduled = subject.designVersionId
      ? await this.db
          .select()
          .from(visits)
          .where(and(eq(visits.versionId, subject.designVersionId), eq(visits.unscheduled, false)))
          .orderBy(asc(visits.sortOrder), asc(visits.dayOffset))
      : [];
    const reportDate = readReportDate(file.ocr);
    let visit: VisitRow | null = null;
    if (input.visitId !== undefined) {
      visit = scheduled.find((v) => v.id === input.visitId) ?? null;
      if (!visit) throw new AppError('NOT_FOUND', { entity: 'visit' });
    } else if (file.visitId !== null) visit = scheduled.find((v) => v.id === file.visitId) ?? null;
    const win = (v: VisitRow) => visitWindow(subject.firstVisitDate, v);
    if (!visit && reportDate) {
      const dist = (v: VisitRow) => Math.abs(Date.parse(win(v).planned) - Date.parse(reportDate));
      visit =
        scheduled
          .filter((v) => reportDate >= win(v).start && reportDate <= win(v).end)
          .sort((a, b) => dist(a) - dist(b))[0] ?? null;
    }
    let effectiveDate: string | null = reportDate;
    if (visit) {
      const w = win(visit);
      effectiveDate = reportDate && reportDate >= w.start && reportDate <= w.end ? reportDate : w.planned;
    }

    // ── the rules of the subject's design version that can read a document (FHIRPath reads a FHIR resource) ──
    const ruleRows = subject.designVersionId
      ? await this.db
          .select({
            r: mappingRules,
            f: {
              id: forms.id,
              code: forms.code,
              name: forms.name,
              nameEn: forms.nameEn,
              definition: forms.definition,
            },
          })
          .from(mappingRules)
          .innerJoin(forms, eq(forms.id, mappingRules.formId))
          .innerJoin(designVersions, eq(designVersions.id, mappingRules.designVersionId))
          .where(
            and(
              eq(mappingRules.designVersionId, subject.designVersionId),
              eq(designVersions.projectId, ctx.project.id),
              eq(mappingRules.method, 'code'),
            ),
          )
          .orderBy(asc(mappingRules.formId), asc(mappingRules.id))
      : [];
    const formsById = new Map<number, FormInfo>();
    for (const { f } of ruleRows) {
      if (formsById.has(f.id)) continue;
      const def = f.definition as unknown as FormDefinition;
      formsById.set(f.id, {
        id: f.id,
        code: f.code,
        name: f.name,
        nameEn: f.nameEn ?? null,
        fields: new Map(formFields(def.components).map((x) => [x.variable, x])),
      });
    }
    const rules = ruleRows
      .map((x) => x.r)
      .filter(
        (r) =>
          formsById.get(r.formId)!.fields.has(r.variable) &&
          (r.docTypes.length === 0 || r.docTypes.includes(docType)),
      );
    const fieldOf = (r: RuleRow) => formsById.get(r.formId)!.fields.get(r.variable)!;
    const syn = await synonymIndex(this.db, ctx.project.id);
    const termsOf = new Map(
      rules.map((r) => {
        const f = fieldOf(r);
        return [
          r.id,
          syn.expand([...r.codes.map((c) => c.code), f.label, ...(f.labelEn ? [f.labelEn] : [])]),
        ] as const;
      }),
    );

    // ── the results and the records they become ──
    const candidates = parseLabResults(file.ocr);
    const wanted = new Map<string, Wanted>();
    const unmatched: OcrAssociationResult['unmatched'] = [];
    for (const c of candidates) {
      let any = false;
      for (const r of rules) {
        const hit = c.names.find((n) => termsOf.get(r.id)!.has(norm(n)));
        if (hit === undefined) continue;
        any = true;
        const first = r.codes[0];
        const key = first ? `code:${first.system ?? ''}|${first.code}` : `name:${norm(hit)}`;
        const externalId = `${fileRegionRef(file.id, c.region)}#${key}`.slice(0, 300);
        const have = wanted.get(externalId);
        if (have) {
          have.rules.push(r);
          continue;
        }
        const raw = JSON.stringify({
          fileId: file.id,
          region: c.region,
          text: c.text,
          name: c.name,
          value: c.valueRaw,
          unit: c.unit,
          range: c.range,
          flag: c.flag,
          reportDate,
          visitId: visit?.id ?? null,
        });
        const rec = {
          codeSystem: first?.system ?? null,
          code: first?.code ?? null,
          display: first ? c.name : hit,
        };
        wanted.set(externalId, {
          externalId,
          candidate: c,
          rules: [r],
          ...rec,
          raw,
          hash: sha256(
            JSON.stringify([
              docType,
              rec.codeSystem,
              rec.code,
              rec.display,
              c.valueNum,
              c.valueText,
              c.ucum ?? c.unit,
              effectiveDate,
              raw,
            ]),
          ),
        });
      }
      if (!any)
        unmatched.push({ name: c.name, sourceValue: c.valueRaw, sourceUnit: c.unit, region: c.region });
    }

    // ── store: insert, update what changed, withdraw what is no longer proposed; one run per file at a time ──
    const counts = { created: 0, updated: 0, unchanged: 0, withdrawn: 0 };
    const stored = await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`ocr-association:${file.id}`}))`);
      const existing = new Map(
        (await tx.select().from(sourceRecords).where(eq(sourceRecords.sourceFileId, file.id))).map((r) => [
          r.externalId,
          r,
        ]),
      );
      const out = new Map<string, typeof sourceRecords.$inferSelect>();
      const versions: (typeof sourceRecordVersions.$inferInsert)[] = [];
      const fresh: (typeof sourceRecords.$inferInsert)[] = [];
      for (const w of wanted.values()) {
        const c = w.candidate;
        const stored = {
          docType,
          resourceType: 'Observation',
          codeSystem: w.codeSystem?.slice(0, 200) ?? null,
          code: w.code?.slice(0, 100) ?? null,
          display: w.display.slice(0, 500),
          valueNum: c.valueNum,
          valueText: c.valueText,
          unit: (c.ucum ?? c.unit)?.slice(0, 60) ?? null,
          effectiveAt: null,
          effectiveDate,
          status: null,
          contentHash: w.hash,
          raw: w.raw,
          region: c.region,
        };
        const values = { ...stored, ...labColumns({ ...stored, rawFormat: 'ocr', externalId: w.externalId }) };
        const e = existing.get(w.externalId);
        let rec: typeof sourceRecords.$inferSelect;
        if (!e) {
          // inserted together below
          fresh.push({
            env: file.env,
            projectId: file.projectId,
            siteId: file.siteId,
            subjectId: file.subjectId,
            sourceFileId: file.id,
            externalId: w.externalId,
            rawFormat: 'ocr',
            ...values,
          });
          continue;
        } else if (e.contentHash === w.hash && e.deletedAt === null) {
          rec = e;
          counts.unchanged++;
        } else {
          [rec] = (await tx
            .update(sourceRecords)
            .set({ ...values, version: e.version + 1, deletedAt: null, updatedAt: new Date() })
            .where(eq(sourceRecords.id, e.id))
            .returning()) as [typeof rec];
          versions.push({
            recordId: rec.id,
            version: rec.version,
            changeKind: 'updated',
            contentHash: w.hash,
            valueNum: c.valueNum,
            valueText: c.valueText,
            unit: values.unit,
            raw: w.raw,
          });
          counts.updated++;
        }
        out.set(w.externalId, rec);
      }
      if (fresh.length)
        for (const rec of await tx.insert(sourceRecords).values(fresh).returning()) {
          versions.push({
            recordId: rec.id,
            version: 1,
            changeKind: 'created',
            contentHash: rec.contentHash,
            valueNum: rec.valueNum,
            valueText: rec.valueText,
            unit: rec.unit,
            raw: rec.raw,
          });
          out.set(rec.externalId, rec);
          counts.created++;
        }
      const gone = [...existing.values()].filter((e) => e.deletedAt === null && !wanted.has(e.externalId));
      if (gone.length)
        await tx
          .update(sourceRecords)
          .set({ deletedAt: new Date(), version: sql`${sourceRecords.version} + 1`, updatedAt: new Date() })
          .where(inArray(sourceRecords.id, gone.map((e) => e.id)));
      for (const e of gone) {
        versions.push({
          recordId: e.id,
          version: e.version + 1,
          changeKind: 'deleted',
          contentHash: e.contentHash,
          valueNum: e.valueNum,
          valueText: e.valueText,
          unit: e.unit,
          raw: e.raw,
        });
      }
      counts.withdrawn = gone.length;
      if (versions.length) await tx.insert(sourceRecordVersions).values(versions);
      if (counts.created + counts.updated + counts.withdrawn > 0)
        await recordAudit(tx, actorOf(ctx), [
          {
            action: 'document.ocrAssociation',
            entity: 'sourceFile',
            entityId: file.id,
            projectId: file.projectId,
            siteId: file.siteId,
            subjectId: file.subjectId,
            newValue: {
              ...counts,
              visitId: visit?.id ?? null,
              effectiveDate,
              records: [...out.values()].map((r) => r.id),
            },
          },
        ]);
      return out;
    });

    // ── the proposals, as the pre-fill engine will read the records ──
    const zone = await projectZone(this.db, ctx.project.id);
    const clock = latestClock();
    const proposals: OcrProposal[] = [];
    for (const w of wanted.values()) {
      const rec = stored.get(w.externalId)!;
      const m: MappingRecord = { ...rec, effectiveAt: null };
      for (const r of w.rules) {
        const field = fieldOf(r);
        const rule = ruleOf(r);
        // the engine must find the record for this item (by code, or by the name read for a rule without codes)
        if (matchRecords(rule, field, new RecordIndex([m]), syn).records.length === 0) continue;
        const v = coerce(rule, field, m, undefined, { timeZone: zone, clock });
        const form = formsById.get(r.formId)!;
        const c = w.candidate;
        proposals.push({
          recordId: rec.id,
          recordVersion: rec.version,
          formId: form.id,
          formCode: form.code,
          formName: form.name,
          formNameEn: form.nameEn,
          variable: field.variable,
          label: field.label,
          labelEn: field.labelEn ?? null,
          name: c.name,
          sourceValue: c.valueRaw,
          sourceUnit: c.unit,
          range: c.range,
          flag: c.flag,
          value: 'problem' in v ? null : v.value,
          unit: field.type === 'number' ? (r.unit ?? field.unit ?? null) : null,
          conversion: 'problem' in v ? null : v.conversion,
          problem: 'problem' in v ? v.problem : null,
          problemMessage: 'problem' in v ? t(`prefill.problem.${v.problem}`) : null,
          region: c.region,
        });
      }
    }
    proposals.sort(
      (a, b) =>
        a.region.page - b.region.page ||
        a.region.y - b.region.y ||
        a.region.x - b.region.x ||
        a.formId - b.formId,
    );
    return {
      fileId: file.id,
      ptsId: subject.id,
      reportDate,
      visit: visit
        ? {
            visitId: visit.id,
            code: visit.code,
            name: visit.name,
            nameEn: visit.nameEn ?? null,
            planned: win(visit).planned,
          }
        : null,
      effectiveDate,
      count: proposals.length,
      ...counts,
      proposals,
      unmatched,
    };
  }
}
