-- Issue 16 item 1: the guard keeps each session's access answer in the API process (modules/auth/access-cache.ts)
-- and drops it the moment anything it was read from changes. These triggers send NOTIFY esource_access, delivered
-- at commit (a rolled-back change sends nothing; the same payload twice in one transaction is sent once):
--   's:<token_hash>'  a session changed (row-level, old and new token): logout, ended sessions, the keep-alive's
--                     new expiry (at most one per user per 30 s), an environment switch;
--   '*'               a user, role, role permission, membership, membership site or project changed: every entry
--                     goes (statement-level, one per statement; these change rarely). Only the columns the guard
--                     reads count for users, sessions and projects, so a login's failure count or last-login time
--                     does not empty the caches.
CREATE OR REPLACE FUNCTION esource_access_notify_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('esource_access', 's:' || OLD.token_hash);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('esource_access', 's:' || NEW.token_hash);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION esource_access_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('esource_access', '*');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_access_notify
  AFTER INSERT OR DELETE OR UPDATE OF token_hash, user_id, login_type, env, expires_at, ended_at ON sessions
  FOR EACH ROW EXECUTE FUNCTION esource_access_notify_session();
--> statement-breakpoint
CREATE TRIGGER sessions_access_notify_truncate AFTER TRUNCATE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER users_access_notify
  AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, account, name, org_id, system_role_id, status, password_changed_at ON users
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER projects_access_notify
  AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, no, name, status, scene, config_five_function ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER roles_access_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER role_permissions_access_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON role_permissions
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER project_members_access_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON project_members
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
--> statement-breakpoint
CREATE TRIGGER project_member_sites_access_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON project_member_sites
  FOR EACH STATEMENT EXECUTE FUNCTION esource_access_notify_all();
