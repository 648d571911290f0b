/**
 * Namespaced localStorage. In micro-app mode the host may give a prefix so that two mounted copies (or the
 * host's own state) do not collide.
 */
let prefix = 'esource.';

export function setStoragePrefix(p: string): void {
  prefix = p.endsWith('.') ? p : `${p}.`;
}

/** The parsed value, or null; callers check or narrow what they read. */
export function readJson(key: string): unknown {
  try {
    const raw = globalThis.localStorage?.getItem(prefix + key);
    return raw ? (JSON.parse(raw) as unknown) : null;
  } catch {
    return null;
  }
}

export function writeJson(key: string, value: unknown): void {
  try {
    if (value === null || value === undefined) globalThis.localStorage?.removeItem(prefix + key);
    else globalThis.localStorage?.setItem(prefix + key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the session simply does not survive a reload */
  }
}
