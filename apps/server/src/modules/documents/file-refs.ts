/**
 * Who holds a key of the content-addressed file store (file-store.ts). Identical content is stored once, so one key may
 * be a source document, its de-identified copy, an eCRF file, an avatar, a feedback screenshot, a subject PDF and any
 * number of generated files at once: bytes leave the store only when no row references their key. REFERENCES lists
 * every column that holds a key — a table that stores content must be added there, or its bytes can be deleted under it.
 *
 * A writer stores content before the transaction that records its row, and `put` skips content already there: a delete
 * in between would leave the row without bytes. So both sides take the key's transaction-scoped advisory lock: the
 * deleter checks the references and removes the bytes while holding it (`releaseContent`), the writer takes it in the
 * transaction that records its reference and stores the content again if it is gone (`retainContent`). Either the
 * writer's row is committed before the deleter looks (the bytes stay) or the bytes are gone before the writer looks
 * (it puts them back). Writers that store what a user sent, or what can equal a generated file, call `retainContent`: the
 * export job, source-document, ISF and eCRF-image uploads (how a downloaded export comes back); the others store
 * re-encoded images or their own renderings, which no generated file equals — a writer that changes that must call it too.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../db/client';
import { exportFiles, feedback, sourceFiles, subjectPdfs, uploads, users } from '../../db/schema';
import { rowsOf } from '../../lib/sql';
import { avatarUrl } from '../profile/avatar-url';
import type { FileStore } from './file-store';

/** Every column holding a file-store key, as "this row needs the content of `key`". */
const REFERENCES: readonly ((key: string) => SQL)[] = [
  (k) => sql`exists (select 1 from ${sourceFiles} where ${sourceFiles.originalKey} = ${k} or ${sourceFiles.redactedKey} = ${k})`,
  (k) => sql`exists (select 1 from ${subjectPdfs} where ${subjectPdfs.fileKey} = ${k})`,
  (k) => sql`exists (select 1 from ${uploads} where ${uploads.fileKey} = ${k})`,
  // a deleted generated file no longer needs its content (its row stays for the audit trail)
  (k) => sql`exists (select 1 from ${exportFiles} where ${exportFiles.fileKey} = ${k} and ${exportFiles.deletedAt} is null)`,
  (k) => sql`exists (select 1 from ${feedback} where ${feedback.screenshotKey} = ${k})`,
  // a user's current avatar (the key is in its URL)
  (k) => sql`exists (select 1 from ${users} where ${users.imgUrl} = ${avatarUrl(k)})`,
];

/** Whether any row still needs the content of `key`. */
export async function isReferenced(db: DbOrTx, key: string): Promise<boolean> {
  const r = await db.execute(sql`select (${sql.join(REFERENCES.map((ref) => ref(key)), sql` or `)}) as used`);
  return rowsOf<{ used: boolean }>(r)[0]?.used === true;
}

/** Takes the keys' advisory locks until the transaction ends (in one order, so two holders never wait in a circle). */
export async function lockKeys(tx: DbOrTx, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`filestore:${key}`}))`);
}

/** Content a writer has stored: as bytes, or as the file it was stored from (still on disk). */
export type StoredContent = { key: string; bytes: Uint8Array } | { key: string; file: string; size: number };

/**
 * For a writer, in the transaction that records its references, after its own `put`: locks the keys and stores again
 * the content a concurrent release removed since.
 */
export async function retainContent(tx: Tx, store: FileStore, contents: readonly StoredContent[]): Promise<void> {
  await lockKeys(
    tx,
    contents.map((c) => c.key),
  );
  for (const c of contents) {
    if (await store.exists(c.key)) continue;
    const stored = 'bytes' in c ? await store.put(c.bytes) : await store.putFile(c.file, c.key, c.size);
    if (stored.key !== c.key) throw new Error(`content for ${c.key} was stored again as ${stored.key}`);
  }
}

/**
 * Deletes the content of each key no row references any more, each in a transaction of its own holding the key's lock
 * (the bytes go before it commits: a writer waiting on the lock then finds them gone and stores them again). `settle`
 * runs in that transaction whether the bytes went or stayed (the caller's rows are done with the key); a failing store
 * rolls it back, so the caller can try again. Returns the keys whose content was deleted.
 */
export async function releaseContent(
  db: Db,
  store: FileStore,
  keys: readonly string[],
  settle?: (tx: Tx, key: string) => Promise<void>,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const key of new Set(keys)) {
    const gone = await db.transaction(async (tx) => {
      await lockKeys(tx, [key]);
      const used = await isReferenced(tx, key);
      await settle?.(tx, key);
      if (used) return false;
      await store.delete(key);
      return true;
    });
    if (gone) deleted.push(key);
  }
  return deleted;
}
