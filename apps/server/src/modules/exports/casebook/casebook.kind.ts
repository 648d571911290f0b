/**
 * The casebook kind of generated file (spec §7 /print/getByItext, issue 14 item 6): a subject's casebook as PDF,
 * blank or filled, with item history and signatures on request, in zh_CN or en_US. The caller must reach the subject
 * (project, environment, their sites; not in the recycle bin); the visits and forms asked for must be the subject's
 * design version's.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { casebookRequest, type CasebookRequest } from '@esource/shared';
import { forms, subjects, visits } from '../../../db/schema';
import { AppError } from '../../../lib/errors';
import { translator } from '../../../lib/i18n';
import { SubjectsService } from '../../subjects/subjects.service';
import type { ExportKindDef } from '../exports.types';
import { loadCasebook } from './casebook.data';

/** A file name part without path or quoting characters. */
const safe = (s: string) => s.replace(/[\\/:*?"<>|\s]+/g, '_');

export const casebookKind: ExportKindDef<CasebookRequest> = {
  kind: 'casebook',
  params: casebookRequest,
  permission: 'crf:casebook:export',
  contentType: 'application/pdf',

  async prepare(db, ctx, p) {
    const [s] = await db
      .select()
      .from(subjects)
      .where(and(eq(subjects.id, p.ptsId), new SubjectsService(db).scope(ctx), sql`${subjects.status} <> 0`));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    if (!s.designVersionId) throw new AppError('CASEBOOK_NO_DESIGN', { ptsNo: s.ptsNo });
    if (p.visitIds.length) {
      const found = await db
        .select({ id: visits.id })
        .from(visits)
        .where(and(inArray(visits.id, p.visitIds), eq(visits.versionId, s.designVersionId)));
      if (found.length !== new Set(p.visitIds).size)
        throw new AppError('INVALID_REFERENCE', { field: 'visitIds' });
    }
    if (p.formIds.length) {
      const found = await db
        .select({ id: forms.id })
        .from(forms)
        .where(and(inArray(forms.id, p.formIds), eq(forms.versionId, s.designVersionId)));
      if (found.length !== new Set(p.formIds).size)
        throw new AppError('INVALID_REFERENCE', { field: 'formIds' });
    }
    const t = translator(ctx.language);
    return {
      siteId: s.siteId,
      subjectId: s.id,
      scopeKey: `subject:${s.id}`,
      title: s.ptsNo,
      fileName: `${safe(s.ptsNo)}-casebook-${p.mode}-${p.language === 'zh_CN' ? 'zh' : 'en'}.pdf`,
      progressText: t('exports.progress.casebook', { ptsNo: s.ptsNo }),
      progressSubject: { ptsId: s.id, ptsNo: s.ptsNo },
    };
  },

  async generate(input, out, report) {
    const p = input.params;
    const data = await loadCasebook(input.db, input.subjectId!, {
      mode: p.mode,
      history: p.history,
      signatures: p.signatures,
      visitIds: p.visitIds,
      formIds: p.formIds,
    });
    // the PDF renderer (pdf-lib, fontkit, the CJK font) is loaded by the first casebook, not by every export process
    const { renderCasebook } = await import('./casebook.render');
    await renderCasebook(
      data,
      {
        mode: p.mode,
        history: p.history,
        signatures: p.signatures,
        language: p.language,
        subset: p.visitIds.length > 0 || p.formIds.length > 0,
        printedBy: input.createdBy.name,
        printedAt: input.createdAt,
      },
      out,
      report,
    );
  },
};
