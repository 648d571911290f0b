/**
 * System settings kept in the product (issue 15 item 3): the host URLs of the suite's apps (served by
 * /sys/config/getConfig over the configured defaults) and the administrator's contact (/admin/info/*). One row per
 * setting, optimistic locking (a stale save names who saved last), every change audited with old and new values.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { HOST_KEYS, type AdminInfo, type HostKey, type HostsView, type Language } from '@esource/shared';
import type { z } from 'zod';
import type { adminInfoUpdate, hostsUpdate } from '@esource/shared';
import type { Config } from '../../config/config';
import type { Db, Tx } from '../../db/client';
import { organizations, sourceConnections, systemSettings, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import type { AuthedContext, ProjectScopedContext } from '../../lib/context';
import { actorOf, recordAudit } from '../audit/audit.service';

type Hosts = Partial<Record<HostKey, string>>;
type Contact = { name: string; phone: string; mail: string; note: string };
const NO_CONTACT: Contact = { name: '', phone: '', mail: '', note: '' };

export class SystemSettingsService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  private async row(db: Db | Tx, key: string, lock = false) {
    const q = db.select().from(systemSettings).where(eq(systemSettings.key, key));
    const [r] = await (lock ? q.for('update') : q);
    return r ?? null;
  }

  /** The host URLs in force: an administrator's over the server's configured defaults (getConfig). */
  async hosts(): Promise<Record<HostKey, string>> {
    const custom = ((await this.row(this.db, 'hosts'))?.value ?? {}) as Hosts;
    return Object.fromEntries(HOST_KEYS.map((k) => [k, custom[k] ?? this.config.hosts[k]])) as Record<HostKey, string>;
  }

  async hostsView(): Promise<HostsView> {
    const r = await this.row(this.db, 'hosts');
    const custom = (r?.value ?? {}) as Hosts;
    const by = r?.updatedBy ? (await this.db.select({ name: users.name }).from(users).where(eq(users.id, r.updatedBy)))[0]?.name ?? null : null;
    return {
      hosts: HOST_KEYS.map((key) => ({ key, value: custom[key] ?? this.config.hosts[key], custom: custom[key] !== undefined, fallback: this.config.hosts[key] })),
      lockVersion: r?.lockVersion ?? 0,
      updatedBy: by,
      updateTime: r?.updatedAt.toISOString() ?? null,
    };
  }

  async updateHosts(ctx: AuthedContext, input: z.output<typeof hostsUpdate>): Promise<HostsView> {
    const next: Hosts = {};
    for (const k of HOST_KEYS) if (input.hosts[k]) next[k] = input.hosts[k];
    await this.save(ctx, 'hosts', input.lockVersion, next, (before) =>
      HOST_KEYS.filter((k) => (before as Hosts)[k] !== next[k]).map((k) => ({ field: k, oldValue: (before as Hosts)[k] ?? null, newValue: next[k] ?? null })),
    );
    return this.hostsView();
  }

  async adminInfo(): Promise<AdminInfo> {
    const r = await this.row(this.db, 'adminInfo');
    return { ...NO_CONTACT, ...((r?.value ?? {}) as Partial<Contact>), lockVersion: r?.lockVersion ?? 0, updateTime: r?.updatedAt.toISOString() ?? null };
  }

  async updateAdminInfo(ctx: AuthedContext, input: z.output<typeof adminInfoUpdate>): Promise<AdminInfo> {
    const next: Contact = { name: input.name, phone: input.phone, mail: input.mail, note: input.note };
    await this.save(ctx, 'adminInfo', input.lockVersion, next, (before) =>
      (Object.keys(NO_CONTACT) as (keyof Contact)[])
        .filter((k) => ((before as Partial<Contact>)[k] ?? '') !== next[k])
        .map((k) => ({ field: k, oldValue: (before as Partial<Contact>)[k] ?? null, newValue: next[k] })),
    );
    return this.adminInfo();
  }

  /** Writes one setting under a row lock; a lockVersion that is not the stored one is refused naming who saved last. */
  private async save(ctx: AuthedContext, key: string, lockVersion: number, value: object, diff: (before: object) => { field: string; oldValue: unknown; newValue: unknown }[]) {
    await this.db.transaction(async (tx) => {
      // the first save of a setting: two administrators at once both see version 0; the insert decides
      await tx.insert(systemSettings).values({ key, value: {}, lockVersion: 0 }).onConflictDoNothing();
      const r = (await this.row(tx, key, true))!;
      if (r.lockVersion !== lockVersion) {
        const [u] = r.updatedBy ? await tx.select({ name: users.name }).from(users).where(eq(users.id, r.updatedBy)) : [];
        throw new AppError('STALE_WRITE', { user: u?.name ?? '?', time: r.updatedAt.toISOString() });
      }
      const changes = diff(r.value as object);
      await tx
        .update(systemSettings)
        .set({ value, lockVersion: r.lockVersion + 1, updatedBy: ctx.user.id, updatedAt: sql`now()` })
        .where(eq(systemSettings.key, key));
      if (changes.length)
        await recordAudit(tx, actorOf(ctx), changes.map((c) => ({ action: 'settings.update', entity: 'settings', entityId: key, env: null, ...c })));
    });
  }

  /** Enabled organisations for pickers (GET /sys/range/listOrg). */
  listOrg() {
    return this.db.select({ id: organizations.id, code: organizations.code, name: organizations.name }).from(organizations).where(eq(organizations.status, 1)).orderBy(asc(organizations.name), asc(organizations.id));
  }

  /** The data ranges of a project membership (GET /sys/range/listRange), in the caller's language. */
  listRange(lang: Language) {
    const t = translator(lang);
    return (['all', 'sites'] as const).map((value) => ({ value, label: t(`ranges.${value}.label`), description: t(`ranges.${value}.description`) }));
  }

  /**
   * POST /project/info/syncUserToHospital: none of the product's hospital connections (FHIR R4 client, FHIR files,
   * HL7 v2 over MLLP, a database view) can receive users, so the answer names the project's connection kinds and says
   * where the team is kept instead. A connection kind that accepts users would be synced here.
   */
  async syncUsersToHospital(ctx: ProjectScopedContext): Promise<never> {
    const rows = await this.db
      .selectDistinct({ kind: sourceConnections.kind })
      .from(sourceConnections)
      .where(sql`${sourceConnections.projectId} = ${ctx.project.id} and ${sourceConnections.env} = ${ctx.env} and ${sourceConnections.deletedAt} is null`);
    const t = translator(ctx.language);
    const kinds = rows.length ? rows.map((r) => t(`hospitalKinds.${r.kind}`, { defaultValue: r.kind })).join(', ') : t('hospitalKinds.none');
    throw new AppError('HOSPITAL_SYNC_UNSUPPORTED', { kinds });
  }
}
