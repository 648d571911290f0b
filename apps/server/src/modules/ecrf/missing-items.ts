/**
 * The missing required items of form instances that no save has computed (migration 0040; docs/decisions.md, "Reports
 * read maintained counters"): instances from before 0040 (missing_rev null) and instances computed against an older
 * definition of their form (missing_rev below forms.lock_version: a draft design version edited in DEV). Every save
 * computes its own instance (EcrfService.saveBatch); this catches up the others in batches, with the same rule
 * (missingRequired over the stored values), and refreshes their subjects' report counts in the same transaction.
 * Workers run it at start and now and then (server.ts); the missing-data report evaluates the forms itself while any
 * instance of them is unknown or stale, so it never shows a wrong figure meanwhile.
 */
import { sql } from 'drizzle-orm';
import { missingRequired, type FormDefinition, type ItemValues } from '@esource/shared';
import type { Db } from '../../db/client';
import { rowsOf } from '../../lib/sql';

/** How many instances one transaction computes. */
const BATCH = 500;

interface Pending {
  id: number;
  subject_id: number;
  form_id: number;
}

/**
 * Computes one batch of unknown or stale instances (any form, any project); returns how many it computed (0: none
 * left, or every one of the batch in use by another transaction: the next round takes them).
 *
 * It never waits for a lock a save may hold. A save locks its instance and then, refreshing its counts, its subject
 * (and a pre-fill may go on to another form of the subject in the same transaction): waiting for either while holding
 * the other could deadlock with it, and the save would fail. So the batch's subjects (in id order) and then their
 * instances are locked with SKIP LOCKED, and those in use are left to their save (which computes its own instance)
 * or to the next round. Workers running at once take different instances.
 */
export async function computeMissingBatch(db: Db, size = BATCH): Promise<number> {
  return db.transaction(async (tx) => {
    // per form, its unknown and its stale instances: two ranges of crf_instances_missing_rev, empty once computed (in
    // index order: unordered, the planner may read the table when its statistics expect many)
    const pending = rowsOf<Pending>(
      await tx.execute(sql`
        select i.id, i.subject_id, i.form_id
          from forms f
          cross join lateral (
            (select i.id, i.subject_id, i.form_id from crf_instances i
              where i.form_id = f.id and i.deleted_at is null and i.missing_rev is null
              order by i.form_id, i.missing_rev limit ${size})
            union all
            (select i.id, i.subject_id, i.form_id from crf_instances i
              where i.form_id = f.id and i.deleted_at is null and i.missing_rev < f.lock_version
              order by i.form_id, i.missing_rev limit ${size})
          ) i
         limit ${size}`),
    );
    if (pending.length === 0) return 0;
    const subjectIds = [...new Set(pending.map((p) => p.subject_id))].sort((a, b) => a - b);
    const held = rowsOf<{ id: number }>(
      await tx.execute(
        sql`select id from subjects where id = any(${sql.param(subjectIds)}::int[]) order by id for update skip locked`,
      ),
    ).map((r) => r.id);
    if (held.length === 0) return 0;
    // the instances locked: the values read next are those they keep until this transaction ends
    const mine = rowsOf<Pending>(
      await tx.execute(sql`
        select id, subject_id, form_id from crf_instances
         where id = any(${sql.param(pending.map((p) => p.id))}::int[]) and subject_id = any(${sql.param(held)}::int[])
           and deleted_at is null
         order by id for update skip locked`),
    );
    if (mine.length === 0) return 0;
    const ids = mine.map((p) => p.id);
    const formRows = rowsOf<{ id: number; definition: FormDefinition | string; lock_version: number }>(
      await tx.execute(sql`
        select id, definition, lock_version from forms
         where id = any(${sql.param([...new Set(mine.map((p) => p.form_id))])}::int[])`),
    );
    const formsById = new Map(
      formRows.map((f) => [
        f.id,
        {
          def: (typeof f.definition === 'string' ? JSON.parse(f.definition) : f.definition) as FormDefinition,
          rev: f.lock_version,
        },
      ]),
    );
    const values = new Map<number, ItemValues>();
    for (const v of rowsOf<{ instance_id: number; variable: string; value: { v: unknown } | string | null }>(
      await tx.execute(sql`
        select instance_id, variable, value from crf_values where instance_id = any(${sql.param(ids)}::int[])`),
    )) {
      const value = typeof v.value === 'string' ? (JSON.parse(v.value) as { v: unknown }) : v.value;
      let item = values.get(v.instance_id);
      if (!item) values.set(v.instance_id, (item = {}));
      item[v.variable] = value?.v ?? null;
    }
    const rows = mine.map((p) => {
      const form = formsById.get(p.form_id)!;
      const items = missingRequired(form.def, values.get(p.id) ?? {});
      return { id: p.id, rev: form.rev, items };
    });
    await tx.execute(sql`
      update crf_instances i
         set missing_items = x.items::varchar(40)[], missing_count = cardinality(x.items), missing_rev = x.rev
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id int, rev int, items text[])
       where i.id = x.id`);
    // their subjects' counts (already locked by this transaction)
    await tx.execute(
      sql`select refresh_subject_progress(${sql.param([...new Set(mine.map((p) => p.subject_id))])}::int[])`,
    );
    return mine.length;
  });
}

/**
 * Computes every unknown or stale instance, a batch per transaction, until none is left or `stopped()` says so (the
 * process is closing); returns how many it computed.
 */
export async function computeMissingItems(
  db: Db,
  opts: { size?: number; stopped?: () => boolean } = {},
): Promise<number> {
  let total = 0;
  while (!opts.stopped?.()) {
    const n = await computeMissingBatch(db, opts.size ?? BATCH);
    if (n === 0) break;
    total += n;
  }
  return total;
}
