/**
 * The application's database role on the PostgreSQL server (security issue: the application connected as the
 * tables' owner and could `SET session_replication_role = replica` or disable the append-only triggers).
 *
 * `esource_app` is not superuser and owns nothing: it may read and write the ordinary tables, but only SELECT and
 * INSERT on audit_events and audit_checkpoints. Setting session_replication_role needs superuser, and
 * ALTER TABLE … DISABLE TRIGGER needs ownership, so the application cannot bypass the triggers. Migrations and the
 * grants below run as the owner (DATABASE_URL). The application connects either with its own login
 * (DATABASE_APP_URL: esource_app itself with LOGIN, or a login role that is a member of it) or, in development, on
 * the owner's URL with `role=esource_app` set at connection start (a superuser session can SET ROLE back: that mode
 * guards against mistakes, not attackers; production refuses it).
 */
import type pg from 'pg';

export const APP_ROLE = 'esource_app';

/** tables the application may only read and append to */
const APPEND_ONLY = ['audit_events', 'audit_checkpoints'];

/**
 * Creates the role if missing (roles are cluster-wide: several databases, e.g. test databases, may race to create
 * it) and grants it its rights on this database's tables, every start, so that tables of later migrations follow.
 */
export async function ensureAppRole(owner: pg.Pool): Promise<void> {
  const c = await owner.connect();
  try {
    await c.query('begin');
    await c.query(`select pg_advisory_xact_lock(hashtext('esource_app_role'))`);
    await c.query(`
      do $$
      begin
        if not exists (select 1 from pg_roles where rolname = '${APP_ROLE}') then
          begin
            create role ${APP_ROLE} nologin nosuperuser nocreatedb nocreaterole nobypassrls;
          exception when duplicate_object or unique_violation then
            null; -- created meanwhile by another database's start
          end;
        end if;
      end $$`);
    await c.query(`grant usage on schema public to ${APP_ROLE}`);
    await c.query(`grant select, insert, update, delete on all tables in schema public to ${APP_ROLE}`);
    await c.query(`revoke update, delete, truncate, references, trigger on ${APPEND_ONLY.join(', ')} from ${APP_ROLE}`);
    await c.query(`grant usage, select on all sequences in schema public to ${APP_ROLE}`);
    await c.query('commit');
  } catch (err) {
    await c.query('rollback').catch(() => undefined);
    const msg = (err as Error).message;
    throw new Error(
      `cannot prepare the application role ${APP_ROLE} (${msg}); as a superuser run: CREATE ROLE ${APP_ROLE} NOLOGIN; ` +
        'then start again (the owner grants the rights)',
    );
  } finally {
    c.release();
  }
}

export interface AppConnection {
  currentUser: string;
  sessionUser: string;
}

/**
 * Refuses a connection that could bypass the triggers: its current user must not be superuser nor (a member of)
 * the owner of audit_events.
 */
export async function checkAppConnection(pool: pg.Pool): Promise<AppConnection> {
  const r = await pool.query<{ cu: string; su: string; is_super: boolean; owns: boolean }>(`
    select current_user as cu, session_user as su,
      (select rolsuper from pg_roles where rolname = current_user) as is_super,
      pg_has_role(current_user, (select relowner from pg_class where oid = 'audit_events'::regclass), 'USAGE') as owns`);
  const row = r.rows[0]!;
  if (row.is_super || row.owns) {
    throw new Error(
      `the application's database role ${row.cu} is ${row.is_super ? 'a superuser' : 'the owner of audit_events'}: ` +
        `it could bypass the audit trail's triggers. DATABASE_APP_URL must name a login role in ${APP_ROLE} (docs/security.md)`,
    );
  }
  return { currentUser: row.cu, sessionUser: row.su };
}
