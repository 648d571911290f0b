/** A unique violation (SQLSTATE 23505): the driver's own error, or wrapped (by Drizzle, a transaction) as a cause. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
