/**
 * The micro configs of a project environment (issue 15 item 6): 'crf' (/project/microCrfConfig: what the shared form
 * shows the participant) and 'dc' (/project/microDCConfig: whether and which forms may be shared, and for how long).
 * Never saved = the defaults (version 0). A save carries the version it read; someone else's save meanwhile is refused
 * naming them; each changed setting is audited in the save's transaction.
 */
import { and, desc, eq } from 'drizzle-orm';
import {
  formFields,
  microCrfSettings,
  microDcSettings,
  MICRO_CRF_DEFAULTS,
  MICRO_DC_DEFAULTS,
  type FormComponent,
  type MicroCrfConfigView,
  type MicroCrfSettings,
  type MicroDcConfigView,
  type MicroDcFormRow,
  type MicroDcSettings,
} from '@esource/shared';
import type { Db, DbOrTx } from '../../db/client';
import { designVersions, forms, microConfigs, users } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { staleWrite } from '../../lib/stale';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';

export type MicroKind = 'crf' | 'dc';
interface Scope {
  projectId: number;
  env: string;
}
type SettingsOf<K extends MicroKind> = K extends 'crf' ? MicroCrfSettings : MicroDcSettings;

const SCHEMAS = { crf: microCrfSettings, dc: microDcSettings } as const;
const DEFAULTS = { crf: MICRO_CRF_DEFAULTS, dc: MICRO_DC_DEFAULTS } as const;

/** Stored settings read through today's schema over the defaults (a setting added later takes its default). */
function settingsOf<K extends MicroKind>(kind: K, stored: unknown): SettingsOf<K> {
  const base = { ...DEFAULTS[kind], ...(stored && typeof stored === 'object' ? stored : {}) };
  const parsed = SCHEMAS[kind].safeParse(base);
  return (parsed.success ? parsed.data : DEFAULTS[kind]) as SettingsOf<K>;
}

async function readRow(db: DbOrTx, s: Scope, kind: MicroKind) {
  const [r] = await db
    .select({ c: microConfigs, by: users.name })
    .from(microConfigs)
    .leftJoin(users, eq(users.id, microConfigs.updatedBy))
    .where(
      and(eq(microConfigs.projectId, s.projectId), eq(microConfigs.env, s.env), eq(microConfigs.kind, kind)),
    );
  return r ?? null;
}

/** The settings in force for a project environment (the defaults when never saved): what links and the page obey. */
export async function microSettings<K extends MicroKind>(
  db: DbOrTx,
  s: Scope,
  kind: K,
): Promise<SettingsOf<K>> {
  return settingsOf(kind, (await readRow(db, s, kind))?.c.settings);
}

const scopeOf = (ctx: ProjectScopedContext): Scope => ({ projectId: ctx.project.id, env: ctx.env });

export class MicroConfigService {
  constructor(private readonly db: Db) {}

  async get(ctx: ProjectScopedContext, kind: 'crf'): Promise<MicroCrfConfigView>;
  async get(ctx: ProjectScopedContext, kind: 'dc'): Promise<MicroDcConfigView>;
  async get(ctx: ProjectScopedContext, kind: MicroKind): Promise<MicroCrfConfigView | MicroDcConfigView> {
    const r = await readRow(this.db, scopeOf(ctx), kind);
    return {
      settings: settingsOf(kind, r?.c.settings),
      version: r?.c.version ?? 0,
      updatedByName: r?.by ?? null,
      updateTime: r?.c.updatedAt.toISOString() ?? null,
    } as MicroCrfConfigView | MicroDcConfigView;
  }

  async save(
    ctx: ProjectScopedContext,
    kind: 'crf',
    input: MicroCrfSettings & { version: number },
  ): Promise<MicroCrfConfigView>;
  async save(
    ctx: ProjectScopedContext,
    kind: 'dc',
    input: MicroDcSettings & { version: number },
  ): Promise<MicroDcConfigView>;
  async save(
    ctx: ProjectScopedContext,
    kind: MicroKind,
    input: (MicroCrfSettings | MicroDcSettings) & { version: number },
  ): Promise<MicroCrfConfigView | MicroDcConfigView> {
    const s = scopeOf(ctx);
    const { version, ...rest } = input;
    // the list of shareable forms is kept sorted and without repeats, so that a save that changes nothing is one
    const next = settingsOf(
      kind,
      kind === 'dc' ? { ...rest, formCodes: [...new Set((rest as MicroDcSettings).formCodes)].sort() } : rest,
    );
    await this.db.transaction(async (tx) => {
      const old = await readRow(tx, s, kind);
      if ((old?.c.version ?? 0) !== version)
        throw await staleWrite(tx, old?.c.updatedBy, old?.c.updatedAt ?? new Date());
      const before = settingsOf(kind, old?.c.settings);
      const keys = Object.keys(next);
      // (never saved: the change is from the defaults)
      const changes = diffEntries(
        {
          action: `microConfig.${kind}`,
          entity: 'micro_config',
          entityId: s.projectId,
          projectId: s.projectId,
        },
        before as Record<string, unknown>,
        next as Record<string, unknown>,
        keys,
      );
      if (changes.length === 0) return;
      const now = new Date();
      const row = old
        ? (
            await tx
              .update(microConfigs)
              .set({ settings: next, version: old.c.version + 1, updatedBy: ctx.user.id, updatedAt: now })
              .where(and(eq(microConfigs.id, old.c.id), eq(microConfigs.version, old.c.version)))
              .returning()
          )[0]
        : (
            await tx
              .insert(microConfigs)
              .values({
                env: s.env,
                projectId: s.projectId,
                kind,
                settings: next,
                version: 1,
                updatedBy: ctx.user.id,
                updatedAt: now,
              })
              .onConflictDoNothing()
              .returning()
          )[0];
      if (!row) {
        // another save got there between the read and the write
        const now2 = await readRow(tx, s, kind);
        throw await staleWrite(tx, now2?.c.updatedBy, now2?.c.updatedAt ?? new Date());
      }
      await recordAudit(tx, actorOf(ctx), changes);
    });
    return kind === 'crf' ? this.get(ctx, 'crf') : this.get(ctx, 'dc');
  }

  /**
   * The project's form codes (every design version; the newest version's name), for the list of shareable forms.
   * A form with a file item cannot be shared (a participant cannot upload without an account).
   */
  async dcForms(ctx: ProjectScopedContext): Promise<MicroDcFormRow[]> {
    const rows = await this.db
      .select({ code: forms.code, name: forms.name, nameEn: forms.nameEn, definition: forms.definition })
      .from(forms)
      .innerJoin(designVersions, eq(designVersions.id, forms.versionId))
      .where(eq(designVersions.projectId, ctx.project.id))
      .orderBy(desc(designVersions.versionNo), forms.sortOrder, forms.id);
    const out = new Map<string, MicroDcFormRow>();
    for (const r of rows) {
      if (out.has(r.code)) continue;
      const def = r.definition as { components?: FormComponent[]; nameEn?: string };
      out.set(r.code, {
        code: r.code,
        name: r.name,
        nameEn: r.nameEn ?? def.nameEn ?? null,
        hasFile: formFields(def.components ?? []).some((f) => f.type === 'file'),
      });
    }
    return [...out.values()];
  }
}

/** Whether a form may be shared under the settings, and why not (a key of ddc.notAllowed). */
export function shareRefusal(
  dc: MicroDcSettings,
  form: { code: string; definition: unknown },
): 'disabled' | 'notListed' | 'fileItem' | null {
  if (!dc.enabled) return 'disabled';
  if (dc.forms === 'listed' && !dc.formCodes.includes(form.code)) return 'notListed';
  const def = form.definition as { components?: FormComponent[] };
  if (formFields(def.components ?? []).some((f) => f.type === 'file')) return 'fileItem';
  return null;
}
