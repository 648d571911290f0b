/**
 * Dictionaries (issue 13 item 5): the versions of each kind, a version's terms, the import of a new version (all or
 * nothing, in one transaction: the version row, its terms and their search keys, and the audit event) and the switch
 * of the active version. A new import becomes the active version of its kind; an administrator may switch back.
 * System scope: system:dictionary:query reads, system:dictionary:import writes (the routes' guards).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type {
  DictionaryImportFields,
  DictionaryKind,
  DictionaryTermPage,
  DictionaryView,
  Language,
  dictionaryTermsRequest,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { dictionaries, dictionaryTerms, users } from '../../db/schema';
import type { AuthedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { likeOf, rowsOf } from '../../lib/sql';
import { actorOf, recordAudit, type AuditActor } from '../audit/audit.service';
import { haystackOf, KEY, normKey, termKeys } from './dictionary-keys';
import { readDictionaryFile, type ImportRow } from './dictionaries.import';
import { prefixEnd } from './dictionaries.search';

/** What other modules call: the best exact term of a kind's active version, and the ranked search. */
export { findBestTerm, searchTerms, type BestTerm, type SearchOptions } from './dictionaries.search';

type DictionaryRow = typeof dictionaries.$inferSelect;

/** Terms written per statement, and search keys (about eight a term). */
const TERM_BATCH = 5000;
const KEY_BATCH = 40_000;
/** Separates the synonyms of a term in the batch insert (never in a synonym: control characters are refused). */
const SYN_SEP = '\u001f';

const creator = alias(users, 'creator');
const activator = alias(users, 'activator');

function toView(d: DictionaryRow, createdBy: string | null, activatedBy: string | null): DictionaryView {
  return {
    id: d.id,
    kind: d.kind,
    version: d.version,
    name: d.name,
    source: d.source,
    termCount: d.termCount,
    active: d.active,
    createdBy,
    createTime: d.createdAt.toISOString(),
    activatedBy,
    activateTime: d.activatedAt ? d.activatedAt.toISOString() : null,
  };
}

/** Serialises imports and switches of one kind (two at once would both want to be its active version). */
async function lockKind(tx: Tx, kind: DictionaryKind): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`dictionary:${kind}`}))`);
}

async function assertVersionFree(
  db: Db | Tx,
  lang: Language,
  kind: DictionaryKind,
  version: string,
): Promise<void> {
  const [dup] = await db
    .select({ id: dictionaries.id })
    .from(dictionaries)
    .where(and(eq(dictionaries.kind, kind), sql`lower(${dictionaries.version}) = lower(${version})`));
  if (dup)
    throw new AppError('DICTIONARY_VERSION_TAKEN', {
      kind: translator(lang)(`dictionaries.kind.${kind}`),
      version,
    });
}

export interface NewVersion {
  kind: DictionaryKind;
  version: string;
  name: string;
  source: string | null;
}

/**
 * Writes a checked version inside the caller's transaction: the version row (active; the kind's previous active
 * version steps back), its terms and their search keys in batches (arrays through unnest: one short statement per
 * batch), and the audit event. Used by the import, the demo seed and the benchmark.
 */
export async function writeVersion(
  tx: Tx,
  actor: AuditActor,
  v: NewVersion,
  rows: readonly ImportRow[],
  lang: Language = 'zh_CN',
): Promise<DictionaryRow> {
  await lockKind(tx, v.kind);
  await assertVersionFree(tx, lang, v.kind, v.version);
  const [before] = await tx
    .select({ version: dictionaries.version })
    .from(dictionaries)
    .where(and(eq(dictionaries.kind, v.kind), eq(dictionaries.active, true)));
  await tx
    .update(dictionaries)
    .set({ active: false })
    .where(and(eq(dictionaries.kind, v.kind), eq(dictionaries.active, true)));
  const now = new Date();
  const [d] = await tx
    .insert(dictionaries)
    .values({
      ...v,
      termCount: rows.length,
      active: true,
      createdBy: actor.userId,
      activatedBy: actor.userId,
      activatedAt: now,
      createdAt: now,
    })
    .returning();
  for (let i = 0; i < rows.length; i += TERM_BATCH) {
    const batch = rows.slice(i, i + TERM_BATCH);
    const ids = rowsOf<{ id: number; row_no: number }>(
      await tx.execute(sql`insert into dictionary_terms (dictionary_id, row_no, code, term_zh, term_en, synonyms, search)
        select ${d!.id}, u.r, u.c, u.z, u.e, coalesce(string_to_array(u.s, ${SYN_SEP}), '{}')::varchar[], u.h
          from unnest(${sql.param(batch.map((r) => r.rowNo))}::int[], ${sql.param(batch.map((r) => r.code))}::text[],
                      ${sql.param(batch.map((r) => r.termZh))}::text[], ${sql.param(batch.map((r) => r.termEn))}::text[],
                      ${sql.param(batch.map((r) => (r.synonyms.length ? r.synonyms.join(SYN_SEP) : null)))}::text[],
                      ${sql.param(batch.map(haystackOf))}::text[]) as u(r, c, z, e, s, h)
        returning id, row_no`),
    );
    const idOf = new Map(ids.map((x) => [x.row_no, x.id]));
    let keys: { t: number[]; k: number[]; s: (number | null)[]; key: string[] } = {
      t: [],
      k: [],
      s: [],
      key: [],
    };
    const flush = async () => {
      if (!keys.t.length) return;
      await tx.execute(sql`insert into dictionary_keys (dictionary_id, term_id, kind, syn, key)
        select ${d!.id}, u.t, u.k, u.s, u.key from unnest(${sql.param(keys.t)}::int[], ${sql.param(keys.k)}::int2[],
          ${sql.param(keys.s)}::int2[], ${sql.param(keys.key)}::text[]) as u(t, k, s, key)`);
      keys = { t: [], k: [], s: [], key: [] };
    };
    for (const r of batch) {
      const termId = idOf.get(r.rowNo)!;
      for (const k of termKeys(r)) {
        keys.t.push(termId);
        keys.k.push(k.kind);
        keys.s.push(k.syn);
        keys.key.push(k.key);
      }
      if (keys.t.length >= KEY_BATCH) await flush();
    }
    await flush();
    // pinyin and key building are CPU work: let other requests in between batches
    await yieldToLoop();
  }
  await recordAudit(tx, actor, [
    {
      action: 'dictionary.import',
      entity: 'dictionary',
      entityId: d!.id,
      newValue: { kind: v.kind, version: v.version, name: v.name, terms: rows.length },
      reason: v.source,
    },
    {
      action: 'dictionary.activate',
      entity: 'dictionary',
      entityId: d!.id,
      field: 'active',
      oldValue: before?.version ?? null,
      newValue: v.version,
    },
  ]);
  return d!;
}

export class DictionariesService {
  constructor(private readonly db: Db) {}

  private views(where: SQL | undefined) {
    return this.db
      .select({ d: dictionaries, createdBy: creator.name, activatedBy: activator.name })
      .from(dictionaries)
      .leftJoin(creator, eq(creator.id, dictionaries.createdBy))
      .leftJoin(activator, eq(activator.id, dictionaries.activatedBy))
      .where(where);
  }

  /** The versions of a kind (or of every kind), newest first within a kind. */
  async list(kind?: DictionaryKind): Promise<DictionaryView[]> {
    const rows = await this.views(kind ? eq(dictionaries.kind, kind) : undefined).orderBy(
      asc(dictionaries.kind),
      desc(dictionaries.createdAt),
      desc(dictionaries.id),
    );
    return rows.map((r) => toView(r.d, r.createdBy, r.activatedBy));
  }

  private async one(id: number): Promise<DictionaryView> {
    const [r] = await this.views(eq(dictionaries.id, id));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'dictionary' });
    return toView(r.d, r.createdBy, r.activatedBy);
  }

  /**
   * A page of a version's terms. The keyword matches anywhere in the code, a term or a synonym, or as a prefix of
   * the pinyin initials or full pinyin; the total without a keyword is the version's term count.
   */
  async terms(q: z.output<typeof dictionaryTermsRequest>): Promise<DictionaryTermPage> {
    const [d] = await this.db.select().from(dictionaries).where(eq(dictionaries.id, q.dictionaryId));
    if (!d) throw new AppError('NOT_FOUND', { entity: 'dictionary' });
    const kw = q.keyword ? normKey(q.keyword) : '';
    const where = and(
      eq(dictionaryTerms.dictionaryId, d.id),
      kw
        ? sql`(${dictionaryTerms.search} like ${likeOf(kw)} or ${dictionaryTerms.id} in (select term_id from dictionary_keys
            where dictionary_id = ${d.id} and kind in (${KEY.initials}, ${KEY.pinyin}) and key ~>=~ ${kw} and key ~<~ ${prefixEnd(kw)}))`
        : undefined,
    );
    const total = kw
      ? ((await this.db.select({ n: count() }).from(dictionaryTerms).where(where))[0]?.n ?? 0)
      : d.termCount;
    const dir = q.sortOrder === 'desc' ? desc : asc;
    const order = {
      rowNo: [dir(dictionaryTerms.rowNo)],
      code: [dir(sql`lower(${dictionaryTerms.code})`)],
      termZh: [sql`${dictionaryTerms.termZh} ${sql.raw(q.sortOrder)} nulls last`],
      termEn: [sql`lower(${dictionaryTerms.termEn}) ${sql.raw(q.sortOrder)} nulls last`],
    }[q.sortField];
    const rows = await this.db
      .select()
      .from(dictionaryTerms)
      .where(where)
      .orderBy(...order, dir(dictionaryTerms.id))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(
      q,
      total,
      rows.map((r) => ({
        id: r.id,
        rowNo: r.rowNo,
        code: r.code,
        termZh: r.termZh,
        termEn: r.termEn,
        synonyms: r.synonyms,
      })),
    );
  }

  /**
   * Imports a version from an .xlsx or CSV file: the fields and the label first (a taken label is refused before the
   * file is read), then every row is checked; only a file without problems is written, in one transaction.
   */
  async importFile(
    ctx: AuthedContext,
    fields: DictionaryImportFields,
    fileName: string,
    file: Buffer,
  ): Promise<DictionaryView> {
    await assertVersionFree(this.db, ctx.language, fields.kind, fields.version);
    const rows = await readDictionaryFile(file, ctx.language);
    const name = (fields.name ?? fileName.replace(/\.[^.]*$/, '')).slice(0, 100) || fields.version;
    const d = await this.db.transaction((tx) =>
      writeVersion(
        tx,
        actorOf(ctx),
        { kind: fields.kind, version: fields.version, name, source: fields.source ?? null },
        rows,
        ctx.language,
      ),
    );
    return this.one(d.id);
  }

  /** Makes a version the active one of its kind (the one its coding fields search); the switch is audited. */
  async activate(ctx: AuthedContext, id: number): Promise<DictionaryView> {
    await this.db.transaction(async (tx) => {
      const [d] = await tx.select().from(dictionaries).where(eq(dictionaries.id, id));
      if (!d) throw new AppError('NOT_FOUND', { entity: 'dictionary' });
      await lockKind(tx, d.kind);
      const [before] = await tx
        .select()
        .from(dictionaries)
        .where(and(eq(dictionaries.kind, d.kind), eq(dictionaries.active, true)));
      if (before?.id === id) return;
      await tx
        .update(dictionaries)
        .set({ active: false })
        .where(and(eq(dictionaries.kind, d.kind), eq(dictionaries.active, true)));
      await tx
        .update(dictionaries)
        .set({ active: true, activatedBy: ctx.user.id, activatedAt: new Date() })
        .where(eq(dictionaries.id, id));
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'dictionary.activate',
          entity: 'dictionary',
          entityId: id,
          field: 'active',
          oldValue: before?.version ?? null,
          newValue: d.version,
        },
      ]);
    });
    return this.one(id);
  }
}
