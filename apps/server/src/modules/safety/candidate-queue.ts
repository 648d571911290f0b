/**
 * Candidates after live HL7 v2 intake (issue 13 item 3): a message's records are committed on the MLLP hot path, so
 * the subjects it touched are queued here and their candidates generated a moment later, in the background, each
 * subject once however many messages arrived meanwhile. A failure is logged; the next message or a reviewer's
 * "generate" catches up.
 */
import type { Db } from '../../db/client';
import { SafetyService } from './safety.service';

/** how long a burst of messages is gathered before the subjects it touched are generated */
export const CANDIDATE_QUEUE_DELAY_MS = 2_000;

const pending = new Map<Db, Set<number>>();
const timers = new Map<Db, NodeJS.Timeout>();

export function queueCandidates(db: Db, subjectIds: Iterable<number>): void {
  let set = pending.get(db);
  if (!set) pending.set(db, (set = new Set()));
  for (const id of subjectIds) set.add(id);
  if (!set.size || timers.has(db)) return;
  const timer = setTimeout(() => void drain(db), CANDIDATE_QUEUE_DELAY_MS);
  timer.unref();
  timers.set(db, timer);
}

async function drain(db: Db): Promise<void> {
  timers.delete(db);
  const ids = [...(pending.get(db) ?? [])];
  pending.delete(db);
  const svc = new SafetyService(db);
  for (const id of ids) {
    await svc.generateForSubject(id).catch((err: unknown) => console.error(`[safety] candidates of subject ${id}:`, (err as Error).message));
  }
}
