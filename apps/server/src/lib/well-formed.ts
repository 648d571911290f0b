/**
 * Lone UTF-16 surrogates (a JSON "\ud800" escape without its pair) are not characters: node-postgres sends them as
 * U+FFFD, and PostgreSQL's JSON refuses them. Input is refused with them (lib/trim.ts); text the server writes from
 * elsewhere (the audit trail's copies of external data) is made well-formed before it is hashed and stored, so the
 * stored row is the one its hash was computed over.
 */
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/** No lone surrogate (String.prototype.isWellFormed: Node 20, ES2024, beyond the compiler's library here). */
export const isWellFormed = (s: string): boolean => (s as WellFormedString).isWellFormed();

/** The string with each lone surrogate replaced by U+FFFD (itself when there is none). */
export const wellFormed = <T extends string | null>(s: T): T => (s === null || isWellFormed(s) ? s : ((s as WellFormedString).toWellFormed() as T));
