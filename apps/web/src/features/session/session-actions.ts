import type { QueryClient } from '@tanstack/react-query';
import { LOGIN_VARIANTS } from '@esource/shared';
import { sessionStore } from './session-store';
import { authApi } from './api/auth-api';
import { leaveProject } from './project-visits';
import type { GuardAction } from '../../lib/routing/guard';

/** Embedded micro-apps listen for this and unmount themselves (spec §4: a 401 unmounts embedded apps). */
export const UNMOUNT_EMBEDDED_EVENT = 'esource:unmount-embedded';

/** A 401: open the non-closable Login Expired dialog, clear the token, unmount embedded apps (spec §4). */
export function markSessionExpired(): void {
  const s = sessionStore.get();
  if (s.expired || !s.token) return;
  sessionStore.set({ expired: true, token: null });
  window.dispatchEvent(new CustomEvent(UNMOUNT_EMBEDDED_EVENT));
}

/** Log out: tell the server (best effort), forget the user, and return the login path of the user's site. */
export async function logout(queryClient?: QueryClient): Promise<string> {
  const s = sessionStore.get();
  if (s.token) {
    try {
      await leaveProject();
      await authApi.logout();
    } catch {
      /* the session may already be gone on the server; logging out locally is what matters */
    }
  }
  sessionStore.clearAuth();
  sessionStore.set({ expired: false });
  queryClient?.clear();
  return LOGIN_VARIANTS[s.variant].path;
}

/** Applies what the guard decided (spec §2). Idempotent: the guard only asks for changes. */
export function applyGuardActions(actions: GuardAction[], onUuidFailed: () => void): void {
  for (const a of actions) {
    switch (a.type) {
      case 'tokenLogin':
        sessionStore.set({ token: a.token, expired: false, ...(a.env ? { env: a.env } : {}) });
        break;
      case 'enterProject':
        if (sessionStore.get().project?.id === a.proId && (!a.env || a.env === sessionStore.get().env)) break;
        sessionStore.set({
          project: { id: a.proId, no: '', name: '', status: 1 },
          moduleNo: 1,
          proSiteId: null,
          ...(a.env ? { env: a.env } : {}),
        });
        break;
      case 'enterProjectByUuid': {
        const s = sessionStore.get();
        if (s.pendingProjectUuid === a.uuid) break;
        sessionStore.set({ pendingProjectUuid: a.uuid });
        authApi.projectIdByUuid(a.uuid, s.env).then(
          (id) => {
            // the project already open (its label loaded): keep what is known of it, as entering by proId does
            const cur = sessionStore.get().project;
            sessionStore.set({
              pendingProjectUuid: null,
              project:
                cur && cur.id === id
                  ? { ...cur, uuid: a.uuid }
                  : { id, no: '', name: '', status: 1, uuid: a.uuid },
              moduleNo: 1,
              proSiteId: null,
            });
          },
          () => {
            sessionStore.set({ pendingProjectUuid: null });
            onUuidFailed();
          },
        );
        break;
      }
      case 'clearProject':
        sessionStore.set({ project: null, moduleNo: 1, proSiteId: null });
        break;
      case 'listPage':
        sessionStore.set({ listPage: a.page });
        break;
      default: {
        const never: never = a;
        throw new Error(`unknown guard action ${JSON.stringify(never)}`);
      }
    }
  }
}
