import type { Permission } from './permissions';
import { can } from './permissions';
import type { Env } from './enums';

/** Top modules (spec §2 table): number, key, route, permission, environment restriction. */
export interface TopModule {
  no: number;
  key: 'projectManage' | 'userManagement' | 'auditTrail' | 'centerApply';
  path: string;
  anyOf: Permission[];
  envs?: Env[];
}

export const TOP_MODULES: readonly TopModule[] = [
  { no: 1, key: 'projectManage', path: '/overview', anyOf: [] },
  { no: 2, key: 'userManagement', path: '/system/userSys', anyOf: ['system:role:query', 'system:user:query'] },
  {
    no: 6,
    key: 'auditTrail',
    path: '/system/auditTrack',
    anyOf: ['syslog:audit-track:query', 'syslog:audit-supervise-log:query'],
  },
  {
    no: 9,
    key: 'centerApply',
    path: '/system/centerApply',
    anyOf: ['apply:pass:query', 'apply:unpass:query', 'apply:ing:query'],
    envs: ['PRO'],
  },
];

/** Modules the user may open in this environment. */
export function visibleModules(pms: Iterable<string>, env: Env): TopModule[] {
  const set = new Set(pms);
  return TOP_MODULES.filter((m) => (!m.envs || m.envs.includes(env)) && can(set, { anyOf: m.anyOf }));
}
