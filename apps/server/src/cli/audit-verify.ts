/**
 * `npm run audit:verify [-- --chain project:1] [-- --no-checkpoint]`: verifies the audit trail's hash chains
 * against their anchors (the checkpoint table and the anchor file) and names the first broken row of each chain,
 * every chain shorter than its checkpoint or gone, and every lost checkpoint. Exits 1 when anything is broken.
 * Then (unless --chain or --no-checkpoint) writes a checkpoint of the heads as they are now.
 *
 * Uses the same key source as the server (AUDIT_CHAIN_KEY, else the key file in DATA_DIR: audit-key.ts) and the
 * same anchor file (AUDIT_ANCHOR_FILE, else DATA_DIR/audit-anchors.jsonl).
 */
import { loadConfig } from '../config/config';
import { openDatabase } from '../db/client';
import { setAuditChainKey } from '../modules/audit/audit.service';
import { resolveAuditKey, warnAboutAuditKey } from '../modules/audit/audit-key';
import { auditAnchorFilePath, describeBreak, verifyAuditTrail, writeCheckpoint } from '../modules/audit/audit-anchors';

const config = loadConfig();
const chainArg = process.argv.indexOf('--chain');
const chainKey = chainArg > 0 ? process.argv[chainArg + 1] : undefined;
let key: ReturnType<typeof resolveAuditKey>;
try {
  key = resolveAuditKey(config, { create: false });
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
warnAboutAuditKey(key);
setAuditChainKey(key.key);
const file = auditAnchorFilePath(config);
const database = await openDatabase(config);
try {
  const r = await verifyAuditTrail(database.db, { file, ...(chainKey ? { chainKey } : {}) });
  console.log(`key: ${key.source === 'env' ? 'AUDIT_CHAIN_KEY' : `file ${key.file}`}`);
  console.log(`anchors: ${r.checkpoints.table} checkpoint(s) in the table, ${r.checkpoints.file === null ? 'no anchor file' : `${r.checkpoints.file} in ${file}`}`);
  console.log(`audit trail: ${r.chains} chain(s), ${r.rows} row(s) checked`);
  for (const b of r.breaks) console.log(describeBreak(b));
  for (const p of r.anchorProblems) console.log(`BROKEN anchors: ${p}`);
  for (const n of r.notes) console.log(`note: ${n}`);
  const broken = r.breaks.length + r.anchorProblems.length;
  if (broken === 0) console.log('all chains intact');
  if (!chainKey && !process.argv.includes('--no-checkpoint')) {
    const c = await writeCheckpoint(database.db, { file, reason: 'verify' });
    console.log(c.checkpoint ? `checkpoint written: ${c.checkpoint.heads.length} head(s) moved` : 'checkpoint: no chain moved since the last one');
  }
  process.exitCode = broken ? 1 : 0;
} finally {
  await database.close();
}
