/**
 * A migrated, empty embedded database dumped once per set of migrations, from which every in-memory test server
 * starts (Config.pgliteTemplate): creating an empty PGlite database takes ~5 s, loading the dump ~1.5 s, and the
 * migrations then have nothing to do. Kept in the system's temporary folder under a name derived from the
 * migrations' contents and PGlite's version, so a changed migration makes a new one; several test workers building
 * it at once each write their own file and rename it into place.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER } from '../src/db/client';
import * as schema from '../src/db/schema';

let building: Promise<string> | null = null;

function templatePath(): string {
  const h = createHash('sha256');
  // PGlite's own version (its package.json is not exported: found above its entry point)
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  h.update(fs.readFileSync(path.join(dir, 'package.json')));
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const f = path.join(dir, name);
      if (fs.statSync(f).isDirectory()) walk(f);
      else h.update(name).update(fs.readFileSync(f));
    }
  };
  walk(MIGRATIONS_FOLDER);
  return path.join(os.tmpdir(), `esource-pglite-template-${h.digest('hex').slice(0, 16)}.tar`);
}

async function build(file: string): Promise<string> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const client = new PGlite({ extensions: { pg_trgm } });
  try {
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    const dump = await client.dumpDataDir('none');
    const tmp = `${file}.${randomBytes(6).toString('hex')}`;
    fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(tmp, file);
    return file;
  } finally {
    await client.close();
  }
}

/** The template's path, built on first use. */
export function pgliteTemplate(): Promise<string> {
  const file = templatePath();
  if (fs.existsSync(file)) return Promise.resolve(file);
  building ??= build(file).finally(() => (building = null));
  return building;
}
