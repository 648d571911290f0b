import { isPermission, PERMISSION_TREE } from '@esource/shared';

/** A node of the permission tree shown to the user: module → resource → action (key = the permission). */
export interface PermissionNode {
  key: string;
  title: string;
  children?: PermissionNode[];
}

export type LabelOf = (kind: 'module' | 'resource' | 'action', key: string, module?: string) => string;

/**
 * The antd Tree data for the permission catalogue (PERMISSION_TREE). Module nodes are keyed by the module
 * (`system`), resource nodes by `module:resource`, and leaves by the permission itself (`system:user:query`).
 */
export function buildPermissionTree(label: LabelOf): PermissionNode[] {
  return Object.entries(PERMISSION_TREE).map(([m, resources]) => ({
    key: m,
    title: label('module', m),
    children: Object.entries(resources as Record<string, readonly string[]>).map(([r, actions]) => ({
      key: `${m}:${r}`,
      title: label('resource', r, m),
      children: actions.map((a) => ({ key: `${m}:${r}:${a}`, title: label('action', a) })),
    })),
  }));
}

/** The checked leaves for a role's permission list: known permissions only, in catalogue order. */
export function permissionsToChecked(permissions: readonly string[]): string[] {
  const set = new Set(permissions);
  return allLeaves().filter((k) => set.has(k));
}

/**
 * The permission list for the tree's checked keys. The tree reports fully checked parents too (`system`,
 * `system:user`); only leaves are permissions, and they are listed once, sorted.
 */
export function checkedToPermissions(checked: readonly (string | number)[]): string[] {
  return [...new Set(checked.map(String).filter((k) => isPermission(k)))].sort();
}

/** Every permission leaf, in catalogue order. */
export function allLeaves(): string[] {
  return Object.entries(PERMISSION_TREE).flatMap(([m, resources]) =>
    Object.entries(resources as Record<string, readonly string[]>).flatMap(([r, actions]) =>
      actions.map((a) => `${m}:${r}:${a}`),
    ),
  );
}

/** How many of a module's permissions the list holds, for the summary in the roles table. */
export function countByModule(permissions: readonly string[]): { module: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const p of permissions) {
    const m = p.split(':')[0]!;
    counts.set(m, (counts.get(m) ?? 0) + 1);
  }
  return Object.keys(PERMISSION_TREE)
    .filter((m) => counts.has(m))
    .map((m) => ({ module: m, count: counts.get(m)! }));
}
