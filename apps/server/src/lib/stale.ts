import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { users } from '../db/schema';
import { AppError } from './errors';

/**
 * The STALE_WRITE error for a row someone else changed since it was read: names who changed it last and when (the
 * row's updated_by / updated_at), so the message reads "Dana Manager changed this data at …", never "?".
 */
export async function staleWrite(db: DbOrTx, updatedBy: number | null | undefined, updatedAt: Date): Promise<AppError> {
  const [u] = updatedBy ? await db.select({ name: users.name }).from(users).where(eq(users.id, updatedBy)) : [];
  return new AppError('STALE_WRITE', { user: u?.name ?? '?', time: updatedAt.toISOString() });
}
