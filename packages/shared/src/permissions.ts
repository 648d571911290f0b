/**
 * The permission catalogue: every `module:resource:action` string the product knows (spec §2, §6, plus what
 * the product needs). Roles are assigned permissions from this tree; routes and menu entries require them.
 * The web app only mirrors what the server enforces with the same `can()`.
 */
export const PERMISSION_TREE = {
  system: {
    user: ['query', 'add', 'update', 'status', 'invite', 'message', 'import', 'export'],
    role: ['query', 'add', 'update', 'delete'],
    'permission-group': ['query', 'add', 'update', 'delete'],
    org: ['query', 'add', 'update', 'delete'],
    dept: ['query', 'add', 'update', 'delete'],
    config: ['query', 'update'],
    feedback: ['query', 'reply'],
    /** drug, diagnosis, surgery and examination dictionaries (issue 13 item 5) */
    dictionary: ['query', 'import'],
  },
  syslog: {
    'audit-track': ['query', 'export'],
    'audit-supervise-log': ['query', 'export'],
    'login-log': ['query', 'export'],
    /** the authorisation log (spec §7 /auth/log/page and exportExcel): changes of roles, permissions, groups, memberships */
    'auth-log': ['query', 'export'],
  },
  apply: {
    pass: ['query'],
    unpass: ['query'],
    ing: ['query', 'audit'],
  },
  project: {
    info: ['query', 'add', 'update', 'delete', 'copy', 'import', 'export', 'status'],
    search: ['query'],
    version: ['query', 'update', 'publish'],
    visit: ['query', 'update'],
  },
  research: {
    page: ['query', 'add', 'update', 'delete'],
    schedule: ['query', 'update'],
  },
  team: {
    member: ['query', 'add', 'update', 'delete', 'invite'],
  },
  patient: {
    page: ['query', 'add', 'update', 'delete', 'restore', 'import', 'export'],
    identifier: ['query'],
  },
  padoc: {
    'all-doc': ['query'],
    certified: ['query'],
    'pre-crf-report': ['query'],
  },
  crf: {
    form: ['query', 'add', 'update', 'delete', 'import', 'export'],
    result: ['query', 'save', 'check', 'uncheck', 'export'],
    prefill: ['query', 'execute', 'config'],
    /** a subject's casebook PDF (spec §7 /print/getByItext; issue 14 item 6): an export, so a closed project keeps it */
    casebook: ['export'],
  },
  source: {
    file: ['query', 'upload', 'submit', 'withdraw', 'audit', 'original'],
    extract: ['query', 'execute'],
    config: ['query', 'update'],
  },
  message: {
    pending: ['query'],
    processed: ['query'],
    invalid: ['query'],
  },
  doubt: {
    querying: ['query', 'add', 'reply', 'close'],
    replied: ['query'],
    closed: ['query'],
    export: ['export'],
  },
  verification: {
    sdv: ['query', 'check'],
    sdr: ['query', 'check'],
  },
  clinical: {
    judge: ['query', 'update'],
    /** the signal report (issue 13 item 6) */
    signal: ['query', 'export'],
  },
  prolog: {
    'audit-action': ['query', 'export'],
    'upload-edc-log': ['query', 'export'],
  },
  report: {
    'data-consistency': ['query', 'export'],
    extract: ['query', 'export'],
    'sync-change': ['query', 'export'],
    'data-change': ['query', 'export'],
    crf: ['query', 'export'],
    'crf-missing': ['query', 'export'],
    traceability: ['query', 'export'],
  },
  isf: {
    file: ['query', 'upload', 'delete'],
    /** the required document kinds of the sites (data manager) */
    kind: ['config'],
  },
  edc: {
    sync: ['query', 'execute', 'config'],
  },
} as const satisfies Record<string, Record<string, readonly string[]>>;

type Tree = typeof PERMISSION_TREE;
export type Permission = {
  [M in keyof Tree]: {
    [R in keyof Tree[M]]: Tree[M][R] extends readonly (infer A)[]
      ? `${M & string}:${R & string}:${A & string}`
      : never;
  }[keyof Tree[M]];
}[keyof Tree];

/** Every permission in the catalogue, in tree order. */
export const ALL_PERMISSIONS: readonly Permission[] = Object.entries(PERMISSION_TREE).flatMap(([m, resources]) =>
  Object.entries(resources as Record<string, readonly string[]>).flatMap(([r, actions]) =>
    actions.map((a) => `${m}:${r}:${a}` as Permission),
  ),
);

const KNOWN = new Set<string>(ALL_PERMISSIONS);
export function isPermission(s: string): s is Permission {
  return KNOWN.has(s);
}

/** A requirement: any one of `anyOf`, and all of `allOf`. Both empty or absent = no requirement. */
export interface Requirement {
  anyOf?: readonly Permission[];
  allOf?: readonly Permission[];
}

/** True when the permission list satisfies the requirement (spec §6: any-of or all-of). */
export function can(pms: Iterable<string>, req: Requirement | undefined): boolean {
  if (!req) return true;
  const set = pms instanceof Set ? (pms as Set<string>) : new Set(pms);
  if (req.allOf && req.allOf.some((p) => !set.has(p))) return false;
  if (req.anyOf && req.anyOf.length > 0 && !req.anyOf.some((p) => set.has(p))) return false;
  return true;
}

/**
 * A closed project (status 3) cuts permissions down to: every system:* permission, every permission whose
 * third part is query or export, and project:info:status (spec §4).
 */
export function reduceForClosedProject(pms: Iterable<string>): string[] {
  const out: string[] = [];
  for (const p of pms) {
    const [module, , action] = p.split(':');
    if (module === 'system' || action === 'query' || action === 'export' || p === 'project:info:status') out.push(p);
  }
  return out;
}

/** The set of permissions the user holds in the given project state. */
/**
 * The adverse-event product (login type 4, /ae/login) is the safety review alone: a session of that type keeps only
 * these permissions, whatever its roles hold (the server cuts them, so every other call is refused and the menu
 * shows only this part).
 */
export const AE_PRODUCT_MODULES: readonly string[] = ['clinical', 'message'];
export const AE_PRODUCT_PERMISSIONS: readonly string[] = [
  'project:info:query',
  'patient:page:query',
  'padoc:all-doc:query',
  'source:file:query',
  'source:file:original',
  'source:extract:query',
  'system:dictionary:query',
  'system:dictionary:import',
];
export function productPermissions(pms: Iterable<string>, loginType: number | null | undefined): string[] {
  const list = [...pms];
  if (loginType !== 4) return list;
  return list.filter((p) => AE_PRODUCT_MODULES.includes(p.slice(0, p.indexOf(':'))) || AE_PRODUCT_PERMISSIONS.includes(p));
}

export function effectivePermissions(pms: Iterable<string>, projectStatus: number | null | undefined): string[] {
  const list = [...new Set(pms)];
  return projectStatus === 3 ? reduceForClosedProject(list) : list;
}
