/**
 * Personal settings (issue 15 item 1; spec §2 /user-info, §7 POST /user/updatePersonalInfo): the caller changes their
 * own name, e-mail and avatar — never another user's (an id naming someone else is refused). Each change is audited
 * field by field (old and new value) in its transaction. Avatars are checked and re-encoded (avatar.ts), stored by
 * content in the file store that keeps the documents, and served at `/api/user/avatar?key=<sha256>`.
 */
import { eq } from 'drizzle-orm';
import type { PersonalInfo, PersonalInfoUpdate } from '@esource/shared';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { AuthedContext } from '../../lib/context';
import { actorOf, recordAudit, type AuditEntry } from '../audit/audit.service';
import type { FileStore } from '../documents/file-store';
import { avatarMime, prepareAvatar, type Avatar } from './avatar';
import { avatarUrl } from './avatar-url';

export class ProfileService {
  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
  ) {}

  /** The caller's own row; an id naming another user is refused (nobody edits someone else's profile here). */
  private async own(ctx: AuthedContext, id: number | undefined) {
    if (id !== undefined && id !== ctx.user.id) throw new AppError('FORBIDDEN');
    const [u] = await this.db.select().from(users).where(eq(users.id, ctx.user.id));
    if (!u) throw new AppError('NOT_FOUND', { entity: 'user' });
    return u;
  }

  private static view(u: typeof users.$inferSelect): PersonalInfo {
    return { id: u.id, name: u.name, mail: u.mail, phone: u.phone, imgUrl: u.imgUrl };
  }

  async updatePersonalInfo(ctx: AuthedContext, input: PersonalInfoUpdate): Promise<PersonalInfo> {
    const before = await this.own(ctx, input.id);
    const next = { name: input.name, mail: input.mail ?? null };
    const entries: AuditEntry[] = [];
    for (const field of ['name', 'mail'] as const) {
      if (before[field] !== next[field]) {
        entries.push({
          action: 'profile.update',
          entity: 'user',
          entityId: before.id,
          field,
          oldValue: before[field],
          newValue: next[field],
        });
      }
    }
    if (entries.length === 0) return ProfileService.view(before);
    const [after] = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(users)
        .set({ ...next, updatedAt: new Date() })
        .where(eq(users.id, before.id))
        .returning();
      await recordAudit(tx, actorOf(ctx), entries);
      return rows;
    });
    return ProfileService.view(after!);
  }

  /** Checks and re-encodes the upload, stores it and makes it the caller's avatar. */
  async updateAvatar(ctx: AuthedContext, bytes: Buffer, id?: number): Promise<PersonalInfo> {
    const before = await this.own(ctx, id);
    const avatar = await prepareAvatar(ctx.language, bytes);
    const { key } = await this.store.put(avatar.bytes);
    const imgUrl = avatarUrl(key);
    const [after] = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(users)
        .set({ imgUrl, updatedAt: new Date() })
        .where(eq(users.id, before.id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'profile.avatar',
          entity: 'user',
          entityId: before.id,
          field: 'imgUrl',
          oldValue: before.imgUrl,
          newValue: { url: imgUrl, sha256: key, size: avatar.bytes.length, type: avatar.mime },
        },
      ]);
      return rows;
    });
    return ProfileService.view(after!);
  }

  async removeAvatar(ctx: AuthedContext, id?: number): Promise<PersonalInfo> {
    const before = await this.own(ctx, id);
    if (!before.imgUrl) return ProfileService.view(before);
    const [after] = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(users)
        .set({ imgUrl: null, updatedAt: new Date() })
        .where(eq(users.id, before.id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'profile.avatarRemove',
          entity: 'user',
          entityId: before.id,
          field: 'imgUrl',
          oldValue: before.imgUrl,
          newValue: null,
        },
      ]);
      return rows;
    });
    return ProfileService.view(after!);
  }

  /**
   * The bytes of an avatar some user currently has (a key that is no one's avatar — e.g. a source document's — is
   * "not found", whoever asks).
   */
  async readAvatar(key: string): Promise<Avatar> {
    const [u] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.imgUrl, avatarUrl(key)))
      .limit(1);
    if (!u) throw new AppError('NOT_FOUND', { entity: 'file' });
    let bytes: Buffer;
    try {
      bytes = await this.store.get(key);
    } catch {
      throw new AppError('NOT_FOUND', { entity: 'file' });
    }
    return { bytes, mime: avatarMime(bytes) };
  }
}
