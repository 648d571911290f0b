import { api } from '../../lib/api-client';
import { sessionStore, type SessionState } from './session-store';

/**
 * The login log's project entries (spec §7 /audit/log/login/inProInfo and outProInfo): the server records when a
 * user enters a project (environment included) and when they leave it, by switching to another project or
 * environment, going back to the project list, or logging out. A reload of the same tab is not a new entry.
 */
interface Visit {
  token: string;
  proId: number;
  env: string;
}

const KEY = 'esource.projectVisit';

function visitOf(s: SessionState): Visit | null {
  return s.token && s.project?.id && !s.expired ? { token: s.token, proId: s.project.id, env: s.env } : null;
}

const keyOf = (v: Visit) => `${v.token.slice(-12)}:${v.proId}:${v.env}`;

function report(path: string, v: Visit): Promise<void> {
  // the project of the visit, whatever the session holds by now; best effort (a non-member is simply refused)
  return api
    .post<null>(path, {}, { silent: true, ignore401: true, headers: { proId: v.proId, proType: v.env } })
    .then(
      () => undefined,
      () => undefined,
    );
}

function remembered(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

function remember(v: Visit | null): void {
  try {
    if (v) sessionStorage.setItem(KEY, keyOf(v));
    else sessionStorage.removeItem(KEY);
  } catch {
    /* storage unavailable: a reload may then count as a new entry */
  }
}

/** Reports the current project as left (before a logout ends the session that may still say so). */
export async function leaveProject(): Promise<void> {
  const v = visitOf(sessionStore.get());
  if (!v) return;
  remember(null);
  await report('/audit/log/login/outProInfo', v);
}

/** Watches the session and reports entries and departures; returns the unsubscribe. */
export function watchProjectVisits(): () => void {
  let current = visitOf(sessionStore.get());
  if (current && remembered() !== keyOf(current)) {
    remember(current);
    void report('/audit/log/login/inProInfo', current);
  }
  return sessionStore.subscribe(() => {
    const next = visitOf(sessionStore.get());
    if (current?.token === next?.token && current?.proId === next?.proId && current?.env === next?.env) return;
    // left within the same session (a logout reports its departure itself, before the token goes)
    if (current && next?.token === current.token && remembered() === keyOf(current)) void report('/audit/log/login/outProInfo', current);
    if (next) void report('/audit/log/login/inProInfo', next);
    remember(next);
    current = next;
  });
}
