/**
 * The data-mapping screen (issue 11 item 3; /crf/config/listField, listCommValues) and the synonym configuration
 * (/ocrConfig/same, /textConfig/same, /project/…): mapping rules per item of a form, validated on save (a FHIRPath
 * expression that does not compile, an option mapped twice, a unit that is not UCUM are refused with the field
 * named), tested against a real subject's records before saving; synonyms global or per project.
 */
import { and, asc, count, desc, eq, ilike, isNull, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CHOICE_TYPES,
  formFields,
  type FieldComponent,
  type FormDefinition,
  type ListCommValuesResult,
  type ListFieldResult,
  type MappingRuleInput,
  type MappingRuleRow,
  type MappingTestResult,
  type mappingRuleSave,
  type mappingTestRequest,
  type SynonymRow,
  type synonymListRequest,
  type synonymSave,
} from '@esource/shared';
import { compileExpression, evaluateRule, isUcumUnit, RecordIndex, recordDate } from '@esource/interop';
import type { Db, Tx } from '../../db/client';
import { designVersions, forms, mappingRules, sourceRecords, subjects, synonyms, users } from '../../db/schema';
import { staleWrite } from '../../lib/stale';
import { AppError, type FieldProblem } from '../../lib/errors';
import type { AuthedContext, ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';
import { loadRecords, projectZone, ruleOf, synonymIndex, windowOf, type RuleRow } from './prefill-engine';
import { PrefillService } from './prefill.service';
import { recordBrief } from '../sources/record-brief';

type RuleSave = z.output<typeof mappingRuleSave>;

function ruleRow(r: RuleRow, updatedBy: string | null): MappingRuleRow {
  return {
    id: r.id,
    designVersionId: r.designVersionId,
    formId: r.formId,
    variable: r.variable,
    method: r.method,
    docTypes: r.docTypes,
    codes: r.codes.map((c) => (c.system ? { system: c.system, code: c.code } : { code: c.code })),
    useSynonyms: r.useSynonyms,
    ...(r.expression ? { expression: r.expression } : {}),
    ...(r.unit ? { unit: r.unit } : {}),
    selection: r.selection,
    ...(r.worst ? { worst: r.worst } : {}),
    windowOnly: r.windowOnly,
    optionMap: r.optionMap,
    version: r.version,
    updatedBy,
    updateTime: r.updatedAt.toISOString(),
  };
}

export class MappingService {
  private readonly subjects: SubjectsService;
  private readonly prefill: PrefillService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
    this.prefill = new PrefillService(db);
  }

  /** A form of the open project (any design version). */
  private async formOf(db: Db | Tx, ctx: ProjectScopedContext, formId: number) {
    const [f] = await db
      .select({ form: forms, versionId: designVersions.id })
      .from(forms)
      .innerJoin(designVersions, eq(designVersions.id, forms.versionId))
      .where(and(eq(forms.id, formId), eq(designVersions.projectId, ctx.project.id)));
    if (!f) throw new AppError('NOT_FOUND', { entity: 'form' });
    return { form: f.form, versionId: f.versionId, def: f.form.definition as unknown as FormDefinition };
  }

  async listField(ctx: ProjectScopedContext, formId: number): Promise<ListFieldResult> {
    const { form, versionId, def } = await this.formOf(this.db, ctx, formId);
    const rules = await this.db.select({ r: mappingRules, name: users.name }).from(mappingRules).leftJoin(users, eq(users.id, mappingRules.updatedBy)).where(eq(mappingRules.formId, formId));
    const byVar = new Map(rules.map((x) => [x.r.variable, ruleRow(x.r, x.name)]));
    return {
      formId: form.id,
      formCode: form.code,
      formName: form.name,
      designVersionId: versionId,
      items: formFields(def.components)
        .filter((f) => f.type !== 'file')
        .map((f) => ({ variable: f.variable, label: f.label, labelEn: f.labelEn ?? null, type: f.type, unit: f.unit ?? null, options: f.options ?? [], rule: byVar.get(f.variable) ?? null })),
    };
  }

  async listCommValues(ctx: ProjectScopedContext, formId: number, variable: string, codesText?: string): Promise<ListCommValuesResult> {
    const { def } = await this.formOf(this.db, ctx, formId);
    const field = formFields(def.components).find((f) => f.variable === variable);
    if (!field) throw new AppError('NOT_FOUND', { entity: 'item' });
    let codes: string[];
    if (codesText !== undefined && codesText.trim() !== '') codes = codesText.split(',').map((s) => (s.includes('|') ? s.split('|').pop()! : s).trim()).filter(Boolean);
    else {
      const [r] = await this.db.select().from(mappingRules).where(and(eq(mappingRules.formId, formId), eq(mappingRules.variable, variable)));
      codes = r?.codes.map((c) => c.code) ?? [];
    }
    let sourceValues: ListCommValuesResult['sourceValues'] = [];
    if (codes.length) {
      const rows = await this.db
        .select({ codeSystem: sourceRecords.codeSystem, code: sourceRecords.code, display: sourceRecords.display, valueText: sourceRecords.valueText, n: count() })
        .from(sourceRecords)
        .innerJoin(subjects, eq(subjects.id, sourceRecords.subjectId))
        .where(
          and(
            eq(sourceRecords.env, ctx.env),
            eq(sourceRecords.projectId, ctx.project.id),
            isNull(sourceRecords.deletedAt),
            this.subjects.scope(ctx),
            sql`lower(${sourceRecords.code}) in (${sql.join(codes.map((c) => sql`${c.toLowerCase()}`), sql`, `)})`,
          ),
        )
        .groupBy(sourceRecords.codeSystem, sourceRecords.code, sourceRecords.display, sourceRecords.valueText)
        .orderBy(desc(count()))
        .limit(200);
      sourceValues = rows.map((r) => ({ codeSystem: r.codeSystem, code: r.code, display: r.display, valueText: r.valueText, count: r.n }));
    }
    return { options: field.options ?? [], sourceValues };
  }

  /** Field problems of a rule for an item (translated), empty when it may be saved. */
  private ruleProblems(ctx: AuthedContext, field: FieldComponent | undefined, input: MappingRuleInput): FieldProblem[] {
    const t = translator(ctx.language);
    const out: FieldProblem[] = [];
    if (!field) return [{ field: 'variable', message: t('validation.mappingItem') }];
    if (input.method === 'fhirpath') {
      if (!input.expression) out.push({ field: 'expression', message: t('validation.mappingExpressionRequired') });
      else {
        const c = compileExpression(input.expression);
        if (!c.ok) out.push({ field: 'expression', message: t('validation.mappingExpression', { detail: c.error }) });
      }
    } else if (input.codes.length === 0 && !input.useSynonyms) out.push({ field: 'codes', message: t('validation.mappingCodesRequired') });
    if (input.unit && !isUcumUnit(input.unit)) out.push({ field: 'unit', message: t('validation.mappingUnit', { unit: input.unit }) });
    if (input.selection === 'worst' && !input.worst) out.push({ field: 'worst', message: t('validation.mappingWorst') });
    if (input.optionMap.length && !CHOICE_TYPES.includes(field.type)) out.push({ field: 'optionMap', message: t('validation.optionMapNotChoice') });
    const seen = new Set<string>();
    for (const m of input.optionMap) {
      const k = m.source.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
      if (seen.has(k)) out.push({ field: 'optionMap', message: t('validation.duplicateOptionSource', { source: m.source }) });
      seen.add(k);
      if (CHOICE_TYPES.includes(field.type) && !(field.options ?? []).some((o) => o.value === m.value)) out.push({ field: 'optionMap', message: t('validation.optionMapValue', { value: m.value }) });
    }
    return out;
  }

  private refuse(ctx: AuthedContext, problems: FieldProblem[]): never {
    const t = translator(ctx.language);
    throw new AppError('VALIDATION', { detail: t('validation.field', { field: problems[0]!.field, message: problems[0]!.message }) }, problems);
  }

  async save(ctx: ProjectScopedContext, input: RuleSave): Promise<MappingRuleRow> {
    return this.db.transaction(async (tx) => {
      const { versionId, def } = await this.formOf(tx, ctx, input.formId);
      const field = formFields(def.components).find((f) => f.variable === input.variable);
      const problems = this.ruleProblems(ctx, field, input);
      if (problems.length) this.refuse(ctx, problems);
      const values = {
        method: input.method,
        docTypes: [...new Set(input.docTypes)].sort(),
        codes: input.codes.map((c) => (c.system ? { system: c.system, code: c.code } : { code: c.code })),
        useSynonyms: input.useSynonyms,
        expression: input.method === 'fhirpath' ? (input.expression ?? null) : null,
        unit: input.unit || null,
        selection: input.selection,
        worst: input.selection === 'worst' ? (input.worst ?? null) : null,
        windowOnly: input.windowOnly,
        optionMap: input.optionMap,
        updatedBy: ctx.user.id,
      };
      const [existing] = await tx.select().from(mappingRules).where(and(eq(mappingRules.formId, input.formId), eq(mappingRules.variable, input.variable)));
      let row: RuleRow;
      if (existing) {
        if (input.id !== undefined && input.id !== existing.id) throw new AppError('DUPLICATE', { field: input.variable, value: input.variable });
        if (input.version !== undefined && input.version !== existing.version) throw await staleWrite(tx, existing.updatedBy, existing.updatedAt);
        [row] = (await tx
          .update(mappingRules)
          .set({ ...values, version: existing.version + 1, updatedAt: new Date() })
          .where(and(eq(mappingRules.id, existing.id), eq(mappingRules.version, existing.version)))
          .returning()) as [RuleRow];
        if (!row) throw await staleWrite(tx, existing.updatedBy, existing.updatedAt);
      } else {
        if (input.id !== undefined) throw new AppError('NOT_FOUND', { entity: 'mappingRule' });
        [row] = (await tx.insert(mappingRules).values({ ...values, projectId: ctx.project.id, designVersionId: versionId, formId: input.formId, variable: input.variable }).returning()) as [RuleRow];
      }
      await recordAudit(tx, actorOf(ctx), [
        { action: existing ? 'mapping.update' : 'mapping.add', entity: 'mapping_rule', entityId: row.id, projectId: ctx.project.id, field: input.variable, oldValue: existing ? ruleOf(existing) : null, newValue: ruleOf(row) },
      ]);
      return ruleRow(row, ctx.user.name);
    });
  }

  async remove(ctx: ProjectScopedContext, id: number, version?: number): Promise<{ id: number }> {
    return this.db.transaction(async (tx) => {
      const [r] = await tx.select().from(mappingRules).where(and(eq(mappingRules.id, id), eq(mappingRules.projectId, ctx.project.id)));
      if (!r) throw new AppError('NOT_FOUND', { entity: 'mappingRule' });
      if (version !== undefined && version !== r.version) throw await staleWrite(tx, r.updatedBy, r.updatedAt);
      await tx.delete(mappingRules).where(eq(mappingRules.id, id));
      await recordAudit(tx, actorOf(ctx), [{ action: 'mapping.delete', entity: 'mapping_rule', entityId: id, projectId: ctx.project.id, field: r.variable, oldValue: ruleOf(r) }]);
      return { id };
    });
  }

  /** Runs a rule (saved or not) against a subject visit's records: what it would fill and why. Changes nothing. */
  async test(ctx: ProjectScopedContext, input: z.output<typeof mappingTestRequest>): Promise<MappingTestResult> {
    const t = translator(ctx.language);
    let rule: MappingRuleInput;
    if (input.rule) rule = input.rule;
    else if (input.ruleId) {
      const [r] = await this.db.select().from(mappingRules).where(and(eq(mappingRules.id, input.ruleId), eq(mappingRules.projectId, ctx.project.id)));
      if (!r) throw new AppError('NOT_FOUND', { entity: 'mappingRule' });
      rule = ruleRow(r, null);
    } else this.refuse(ctx, [{ field: 'rule', message: t('validation.mappingRuleRequired') }]);
    const { def } = await this.formOf(this.db, ctx, rule.formId);
    const field = formFields(def.components).find((f) => f.variable === rule.variable);
    const problems = this.ruleProblems(ctx, field, rule);
    if (problems.length) this.refuse(ctx, problems);
    const { subject, visit } = await this.prefill.resolve(this.db, ctx, { ptsId: input.ptsId, visitId: input.visitId, unscheduledId: input.unscheduledId });
    const window = await windowOf(this.db, subject, visit, input.unscheduledId);
    const mr = ruleOf({ ...rule, expression: rule.expression ?? null, unit: rule.unit ?? null, worst: rule.worst ?? null, codes: rule.codes.map((c) => (c.system ? { system: c.system, code: c.code } : { code: c.code })) });
    // every record of the subject the rule could read (not only the window): the screen shows what is outside too
    const syn = await synonymIndex(this.db, ctx.project.id);
    const records = await loadRecords(this.db, ctx.env, ctx.project.id, subject.id, [{ ...mr, windowOnly: false, label: field!.label, labelEn: field!.labelEn ?? null }], window, syn);
    const e = evaluateRule({ rule: mr, field: field!, index: new RecordIndex(records), window, synonyms: syn, timeZone: await projectZone(this.db, ctx.project.id) });
    const all = evaluateRule({ rule: { ...mr, windowOnly: false }, field: field!, index: new RecordIndex(records), window, synonyms: syn });
    const inWin = (d: string | null) => d !== null && window !== null && d >= window.start && d <= window.end;
    return {
      value: e.value ?? null,
      problem: e.problem,
      problemMessage: e.problem ? t(`prefill.problem.${e.problem}`) : null,
      problemDetail: e.problemDetail,
      record: e.record ? recordBrief(e.record) : null,
      matched: e.matched,
      inWindow: e.inWindow,
      conversion: e.conversion,
      window,
      records: all.ranked.slice(0, 50).map((r) => ({ ...recordBrief(r), inWindow: inWin(recordDate(r)) })),
    };
  }

  // ── synonyms ──
  private synonymScope(kind: 'ocr' | 'text', projectId: number | null): SQL {
    return and(eq(synonyms.kind, kind), projectId === null ? isNull(synonyms.projectId) : eq(synonyms.projectId, projectId))!;
  }

  async listSynonyms(kind: 'ocr' | 'text', projectId: number | null, q: z.output<typeof synonymListRequest>) {
    const where = and(this.synonymScope(kind, projectId), q.term ? ilike(synonyms.term, `%${q.term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined);
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(synonyms).where(where);
    const rows = await this.db
      .select({ s: synonyms, name: users.name })
      .from(synonyms)
      .leftJoin(users, eq(users.id, synonyms.updatedBy))
      .where(where)
      .orderBy(asc(synonyms.term), asc(synonyms.id))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(q, n, rows.map((r) => this.synonymRow(r.s, r.name)));
  }

  private synonymRow(s: typeof synonyms.$inferSelect, name: string | null): SynonymRow {
    return { id: s.id, projectId: s.projectId, term: s.term, synonyms: s.synonyms, version: s.version, updatedBy: name, updateTime: s.updatedAt.toISOString() };
  }

  async saveSynonym(ctx: AuthedContext, kind: 'ocr' | 'text', projectId: number | null, input: z.output<typeof synonymSave>): Promise<SynonymRow> {
    const t = translator(ctx.language);
    const list = [...new Map(input.synonyms.filter((s) => s.toLowerCase() !== input.term.toLowerCase()).map((s) => [s.toLowerCase(), s])).values()];
    return this.db.transaction(async (tx) => {
      const [dup] = await tx.select({ id: synonyms.id }).from(synonyms).where(and(this.synonymScope(kind, projectId), sql`lower(${synonyms.term}) = lower(${input.term})`));
      if (dup && dup.id !== input.id) throw new AppError('DUPLICATE', { field: t('entities.synonymTerm'), value: input.term }, [{ field: 'term', message: t('errors.DUPLICATE', { field: t('entities.synonymTerm'), value: input.term }) }]);
      let row: typeof synonyms.$inferSelect | undefined;
      let old: typeof synonyms.$inferSelect | undefined;
      if (input.id !== undefined) {
        [old] = await tx.select().from(synonyms).where(and(eq(synonyms.id, input.id), this.synonymScope(kind, projectId)));
        if (!old) throw new AppError('NOT_FOUND', { entity: 'synonym' });
        if (input.version !== undefined && input.version !== old.version) throw await staleWrite(tx, old.updatedBy, old.updatedAt);
        [row] = await tx
          .update(synonyms)
          .set({ term: input.term, synonyms: list, version: old.version + 1, updatedBy: ctx.user.id, updatedAt: new Date() })
          .where(and(eq(synonyms.id, old.id), eq(synonyms.version, old.version)))
          .returning();
        if (!row) throw await staleWrite(tx, old.updatedBy, old.updatedAt);
      } else [row] = await tx.insert(synonyms).values({ projectId, kind, term: input.term, synonyms: list, updatedBy: ctx.user.id }).returning();
      await recordAudit(tx, actorOf(ctx), [
        { action: old ? 'synonym.update' : 'synonym.add', entity: 'synonym', entityId: row!.id, projectId, field: kind, oldValue: old ? { term: old.term, synonyms: old.synonyms } : null, newValue: { term: row!.term, synonyms: row!.synonyms } },
      ]);
      return this.synonymRow(row!, ctx.user.name);
    });
  }

  async deleteSynonym(ctx: AuthedContext, kind: 'ocr' | 'text', projectId: number | null, id: number): Promise<{ id: number }> {
    return this.db.transaction(async (tx) => {
      const [old] = await tx.delete(synonyms).where(and(eq(synonyms.id, id), this.synonymScope(kind, projectId))).returning();
      if (!old) throw new AppError('NOT_FOUND', { entity: 'synonym' });
      await recordAudit(tx, actorOf(ctx), [{ action: 'synonym.delete', entity: 'synonym', entityId: id, projectId, field: kind, oldValue: { term: old.term, synonyms: old.synonyms } }]);
      return { id };
    });
  }

}
