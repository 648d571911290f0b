/**
 * `npm run audit:verify [-- --chain project:1]`: verifies the audit trail's hash chains and names the first
 * broken row of each chain. Exits 1 when any chain is broken.
 */
import { loadConfig } from '../config/config';
import { openDatabase } from '../db/client';
import { verifyAuditChains } from '../modules/audit/audit.service';

const config = loadConfig();
const chainArg = process.argv.indexOf('--chain');
const chainKey = chainArg > 0 ? process.argv[chainArg + 1] : undefined;
const database = await openDatabase(config);
try {
  const r = await verifyAuditChains(database.db, chainKey ? { chainKey } : {});
  console.log(`audit trail: ${r.chains} chain(s), ${r.rows} row(s) checked`);
  for (const b of r.breaks) {
    console.log(`BROKEN chain ${b.chainKey}: first broken row id=${b.id} seq=${b.seq} (${b.reason} mismatch)`);
  }
  if (r.breaks.length === 0) console.log('all chains intact');
  process.exitCode = r.breaks.length ? 1 : 0;
} finally {
  await database.close();
}
