import { useSyncExternalStore } from 'react';
import {
  DEFAULT_ENV,
  DEFAULT_LANGUAGE,
  ENVS,
  LANGUAGES,
  type CurrentUser,
  type Env,
  type Language,
  type LoginType,
  type LoginVariant,
} from '@esource/shared';
import { readJson, writeJson } from '../../lib/storage';

/** The project the user has entered (spec §2: project label number-name). */
export interface CurrentProject {
  id: number;
  no: string;
  name: string;
  status: number;
  uuid?: string | null;
}

export interface SessionState {
  token: string | null;
  user: CurrentUser | null;
  loginType: LoginType | null;
  /** The login site the user came through; where a missing token sends them back to. */
  variant: LoginVariant;
  env: Env;
  language: Language;
  project: CurrentProject | null;
  /** Set when a project is entered by uuid (spec §2 guard); resolved to an id by the server. */
  pendingProjectUuid: string | null;
  proSiteId: number | null;
  orgId: number | null;
  /** Current top module number (spec §2 table: 1, 2, 6, 9). */
  moduleNo: number;
  /** pageNumber kept from the query string (spec §2 guard). */
  listPage: number | null;
  /** The non-closable Login Expired dialog is open (spec §4 Session). */
  expired: boolean;
  /** Password older than 90 days: prompt once per login (spec §5). */
  passwordChangeDue: boolean;
  /** An initial password: the change-password screen is the only way on (the server refuses the rest). */
  passwordChangeRequired: boolean;
}

type Persisted = Pick<
  SessionState,
  | 'token'
  | 'user'
  | 'loginType'
  | 'variant'
  | 'env'
  | 'language'
  | 'project'
  | 'proSiteId'
  | 'orgId'
  | 'moduleNo'
  | 'passwordChangeRequired'
>;
const PERSISTED_KEYS: (keyof Persisted)[] = [
  'token',
  'user',
  'loginType',
  'variant',
  'env',
  'language',
  'project',
  'proSiteId',
  'orgId',
  'moduleNo',
  'passwordChangeRequired',
];

function initialState(): SessionState {
  const raw = readJson('session');
  const saved: Partial<Persisted> = raw && typeof raw === 'object' ? raw : {};
  const stored = readJson('language');
  const lang = typeof stored === 'string' ? stored : null;
  return {
    token: saved.token ?? null,
    user: saved.user ?? null,
    loginType: saved.loginType ?? null,
    variant: saved.variant ?? 'main',
    env: saved.env && (ENVS as readonly string[]).includes(saved.env) ? saved.env : DEFAULT_ENV,
    language: lang && (LANGUAGES as readonly string[]).includes(lang) ? (lang as Language) : DEFAULT_LANGUAGE,
    project: saved.project ?? null,
    pendingProjectUuid: null,
    proSiteId: saved.proSiteId ?? null,
    orgId: saved.orgId ?? null,
    moduleNo: saved.moduleNo ?? 1,
    listPage: null,
    expired: false,
    passwordChangeDue: false,
    passwordChangeRequired: saved.passwordChangeRequired === true,
  };
}

let state: SessionState = initialState();
const listeners = new Set<() => void>();

function persist(s: SessionState): void {
  const out: Partial<Persisted> = {};
  for (const k of PERSISTED_KEYS) (out as Record<string, unknown>)[k] = s[k];
  delete (out as Record<string, unknown>).language;
  writeJson('session', out);
  writeJson('language', s.language);
}

export const sessionStore = {
  get: (): SessionState => state,
  set(patch: Partial<SessionState>): void {
    state = { ...state, ...patch };
    persist(state);
    for (const l of listeners) l();
  },
  subscribe(l: () => void): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
  /** Re-reads persisted state (micro-app remount, tests). */
  reload(): void {
    state = initialState();
    for (const l of listeners) l();
  },
  /** Forget everything about the logged-in user; keep language, env and login variant. */
  clearAuth(): void {
    sessionStore.set({
      token: null,
      user: null,
      loginType: null,
      project: null,
      pendingProjectUuid: null,
      proSiteId: null,
      orgId: null,
      moduleNo: 1,
      listPage: null,
      passwordChangeDue: false,
      passwordChangeRequired: false,
    });
  },
};

const subscribe = (l: () => void): (() => void) => sessionStore.subscribe(l);

export function useSession<T>(select: (s: SessionState) => T): T {
  return useSyncExternalStore(
    subscribe,
    () => select(state),
    () => select(state),
  );
}
