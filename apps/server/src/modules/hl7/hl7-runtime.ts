/**
 * Starts the HL7 v2 MLLP listener of a worker or all-in-one process (MLLP_PORT set): first every message a previous
 * run received but never processed (status 0: the process died between storing and processing) is processed, then
 * the port opens.
 */
import type { Config } from '../../config/config';
import type { Db } from '../../db/client';
import { Hl7Intake } from './hl7-intake';
import { MllpListener } from './mllp-listener';

export async function startHl7Listener(db: Db, config: Pick<Config, 'mllpPort' | 'mllpHost' | 'mllpMaxBytes'>): Promise<MllpListener> {
  const intake = new Hl7Intake(db);
  const recovered = await intake.recover();
  if (recovered > 0) console.warn(`[mllp] processed ${recovered} message(s) received before the last stop`);
  const listener = new MllpListener(intake, { port: config.mllpPort ?? 0, host: config.mllpHost, maxBytes: config.mllpMaxBytes, idleTimeoutMs: 10 * 60_000 });
  const port = await listener.start();
  console.warn(`[mllp] HL7 v2 listener on ${config.mllpHost}:${port}`);
  return listener;
}
