/**
 * The desensitization configuration of the open project and environment (issue 12, /project/ocrProConfig): keywords
 * (add, delete, import all or nothing, at most DEID_KEYWORDS_MAX), the policy (version-checked) and the try-out that
 * runs packages/deid on a pasted text with them. Every change is audited in its own transaction.
 */
import type { z } from 'zod';
import { detectIdentifiers } from '@esource/deid';
import {
  DEID_KEYWORD_MAX,
  DEID_KEYWORDS_MAX,
  DEID_POLICY_KEYS,
  parseKeywordLines,
  type DeidKeywordImportResult,
  type DeidKeywordPage,
  type DeidKeywordRow,
  type DeidPolicyFlags,
  type DeidPolicySaveRequest,
  type DeidPolicyView,
  type DeidTestResult,
  type deidKeywordAddRequest,
  type deidKeywordListRequest,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { AppError, notFound, type FieldProblem } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { staleWrite } from '../../lib/stale';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import {
  countKeywords,
  deleteKeyword,
  existingKeywords,
  flagsOf,
  insertKeywords,
  insertPolicy,
  loadDeidSettings,
  lockKeywords,
  pageKeywords,
  readPolicy,
  updatePolicy,
  type DeidScope,
  type KeywordRow,
  type PolicyRow,
} from './deid-config.repo';

/** Import problems named in the error message; the rest are counted. */
const PROBLEMS_SHOWN = 20;

const scopeOf = (ctx: ProjectScopedContext): DeidScope => ({ projectId: ctx.project.id, env: ctx.env });

function rowView(k: KeywordRow, by: string | null): DeidKeywordRow {
  return { id: k.id, keyword: k.keyword, note: k.note, createdBy: by, createTime: k.createdAt.toISOString() };
}

function policyView(row: PolicyRow | undefined, by: string | null): DeidPolicyView {
  return {
    ...flagsOf(row),
    version: row?.version ?? 0,
    updatedBy: row ? by : null,
    updateTime: row ? row.updatedAt.toISOString() : null,
  };
}

export class DeidConfigService {
  constructor(private readonly db: Db) {}

  async listKeywords(
    ctx: ProjectScopedContext,
    q: z.output<typeof deidKeywordListRequest>,
  ): Promise<DeidKeywordPage> {
    const s = scopeOf(ctx);
    const filtered = await countKeywords(this.db, s, q.keyword);
    const total = q.keyword ? await countKeywords(this.db, s) : filtered;
    const rows = await pageKeywords(this.db, s, q.keyword, q.pageSize, offsetOf(q));
    return {
      ...pageOf(
        q,
        filtered,
        rows.map((r) => rowView(r.k, r.by)),
      ),
      total,
      max: DEID_KEYWORDS_MAX,
    };
  }

  async addKeyword(
    ctx: ProjectScopedContext,
    input: z.output<typeof deidKeywordAddRequest>,
  ): Promise<DeidKeywordRow> {
    const s = scopeOf(ctx);
    return this.db.transaction(async (tx) => {
      await lockKeywords(tx, s);
      if ((await existingKeywords(tx, s, [input.keyword])).size) throw this.duplicate(ctx, input.keyword);
      await this.checkLimit(tx, s, 1);
      const [row] = await insertKeywords(tx, s, ctx.user.id, [input]);
      // the unique index still decides when a writer outside the lock (none today) added it meanwhile
      if (!row) throw this.duplicate(ctx, input.keyword);
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'deidConfig.keywordAdd',
          entity: 'deidKeyword',
          entityId: row.id,
          projectId: s.projectId,
          field: 'keyword',
          newValue: row.keyword,
          reason: row.note,
        },
      ]);
      return rowView(row, ctx.user.name);
    });
  }

  async deleteKeyword(ctx: ProjectScopedContext, id: number): Promise<{ id: number }> {
    const s = scopeOf(ctx);
    return this.db.transaction(async (tx) => {
      const old = await deleteKeyword(tx, s, id);
      if (!old) throw notFound('deidKeyword');
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'deidConfig.keywordDelete',
          entity: 'deidKeyword',
          entityId: id,
          projectId: s.projectId,
          field: 'keyword',
          oldValue: old.keyword,
          reason: old.note,
        },
      ]);
      return { id };
    });
  }

  /**
   * All or nothing: a line that is not a keyword refuses the whole import, naming its line; keywords the project
   * already has and lines repeating an earlier one are skipped and counted; more than DEID_KEYWORDS_MAX in all refuses.
   */
  async importKeywords(ctx: ProjectScopedContext, text: string): Promise<DeidKeywordImportResult> {
    const t = translator(ctx.language);
    const parsed = parseKeywordLines(text);
    if (parsed.problems.length) {
      const detail: FieldProblem[] = parsed.problems.map((p) => ({
        field: 'text',
        message: t('deidConfig.importLine', {
          line: p.line,
          problem: t(`deidConfig.problem.${p.problem}`, { max: DEID_KEYWORD_MAX }),
        }),
      }));
      const shown = detail.slice(0, PROBLEMS_SHOWN).map((d) => d.message);
      if (detail.length > PROBLEMS_SHOWN)
        shown.push(t('deidConfig.importMore', { count: detail.length - PROBLEMS_SHOWN }));
      throw new AppError('IMPORT_FORMAT', { detail: shown.join('; ') }, detail);
    }
    const s = scopeOf(ctx);
    return this.db.transaction(async (tx) => {
      await lockKeywords(tx, s);
      const existing = await existingKeywords(tx, s, parsed.keywords);
      const fresh = parsed.keywords.filter((k) => !existing.has(k.toLowerCase()));
      const before = await this.checkLimit(tx, s, fresh.length);
      const rows = await insertKeywords(
        tx,
        s,
        ctx.user.id,
        fresh.map((keyword) => ({ keyword })),
      );
      await recordAudit(
        tx,
        actorOf(ctx),
        rows.map((r) => ({
          action: 'deidConfig.keywordImport',
          entity: 'deidKeyword',
          entityId: r.id,
          projectId: s.projectId,
          field: 'keyword',
          newValue: r.keyword,
        })),
      );
      return {
        added: rows.length,
        skipped: parsed.repeated + parsed.keywords.length - rows.length,
        total: before + rows.length,
      };
    });
  }

  async policy(ctx: ProjectScopedContext): Promise<DeidPolicyView> {
    const r = await readPolicy(this.db, scopeOf(ctx));
    return policyView(r?.row, r?.by ?? null);
  }

  /** Saves the four switches over the version read (0 = never saved); a save that changes nothing writes nothing. */
  async savePolicy(ctx: ProjectScopedContext, input: DeidPolicySaveRequest): Promise<DeidPolicyView> {
    const s = scopeOf(ctx);
    const flags = Object.fromEntries(DEID_POLICY_KEYS.map((k) => [k, input[k]])) as DeidPolicyFlags;
    return this.db.transaction(async (tx) => {
      const current = await readPolicy(tx, s);
      const old = current?.row;
      if ((old?.version ?? 0) !== input.version)
        throw await staleWrite(tx, old?.updatedBy, old?.updatedAt ?? new Date());
      const before = flagsOf(old);
      if (DEID_POLICY_KEYS.every((k) => before[k] === flags[k])) return policyView(old, current?.by ?? null);
      const row = old
        ? await updatePolicy(tx, s, flags, old.version, ctx.user.id)
        : await insertPolicy(tx, s, flags, ctx.user.id);
      if (!row) {
        // another save got there between the read and the write
        const now = (await readPolicy(tx, s))?.row;
        throw await staleWrite(tx, now?.updatedBy, now?.updatedAt ?? new Date());
      }
      await recordAudit(
        tx,
        actorOf(ctx),
        diffEntries(
          {
            action: 'deidConfig.policy',
            entity: 'deidPolicy',
            entityId: s.projectId,
            projectId: s.projectId,
          },
          before,
          flags,
          DEID_POLICY_KEYS,
        ),
      );
      return policyView(row, ctx.user.name);
    });
  }

  /** What automatic de-identification would hide in `text` with the project's keywords and policy (no subject). */
  async test(ctx: ProjectScopedContext, text: string): Promise<DeidTestResult> {
    const { keywords, policy } = await loadDeidSettings(this.db, scopeOf(ctx));
    const spans = detectIdentifiers(text, { keywords, policy });
    return {
      text,
      spans: spans.map((x) => ({ start: x.start, end: x.end, text: x.text, kind: x.kind, reason: x.reason })),
      keywords: keywords.length,
      policy,
    };
  }

  /** The project's count before adding `adding`; DEID_KEYWORD_LIMIT when the sum passes DEID_KEYWORDS_MAX. */
  private async checkLimit(tx: Tx, s: DeidScope, adding: number): Promise<number> {
    const n = await countKeywords(tx, s);
    if (n + adding > DEID_KEYWORDS_MAX)
      throw new AppError('DEID_KEYWORD_LIMIT', { max: DEID_KEYWORDS_MAX, count: n, adding });
    return n;
  }

  private duplicate(ctx: ProjectScopedContext, keyword: string): AppError {
    const t = translator(ctx.language);
    const field = t('entities.deidKeyword');
    return new AppError('DUPLICATE', { field, value: keyword }, [
      { field: 'keyword', message: t('errors.DUPLICATE', { field, value: keyword }) },
    ]);
  }
}
