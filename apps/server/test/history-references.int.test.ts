import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestServer, type TestServer } from './harness';

/**
 * Migration 0054: crf_value_history's references to its form instance and user are checked once a statement (no
 * longer a foreign key per row), and kept from the other side. The rule must hold as the foreign keys held it: a row
 * naming a missing instance or user is refused, a referenced instance or user cannot be deleted or renumbered, and a
 * delete racing an insert cannot leave an orphan.
 */
let s: TestServer;
let instanceId: number;
let userId: number;

const INSTANCE_REF = '23503:crf_value_history_instance_id_crf_instances_id_fk';
const USER_REF = '23503:crf_value_history_user_id_users_id_fk';
const refusal = (e: unknown): string => {
  const err = e as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const c = err.code ? err : (err.cause ?? {});
  return `${c.code}:${c.constraint}`;
};
const codeOf = async (p: Promise<unknown>): Promise<string | undefined> => {
  try {
    await p;
    return undefined;
  } catch (e) {
    // the refusal and the rule it names (another table's foreign key would be another refusal)
    return refusal(e);
  }
};
const history = (instance: number, user: number | null, variable = 'X') =>
  `insert into crf_value_history (instance_id, variable, old_value, new_value, entry_mode, instance_version, user_id, user_name)
   values (${instance}, '${variable}', null, '{"v": 1}', 0, 1, ${user ?? 'null'}, 'test')`;

beforeAll(async () => {
  s = await startTestServer();
  // a subject's form saved through the API: an instance whose history the save wrote
  const P = { proId: 1, proType: 'PRO' };
  const crc1 = await s.api.login('crc1');
  const [site] = (await s.database.executeSql(`select id from sites where project_id = 1 and env = 'PRO' and site_no = '01'`)).rows;
  const first = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
  const pts = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: Number(site!.id), firstVisitDate: first } });
  const ptsId = pts.body.data.ptsId;
  const sched = await s.api.get<{ code: string; visitId: number; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
  const v1 = sched.body.data.find((v) => v.code === 'V1')!;
  const saved = await s.api.post<{ instance: { id: number } }>('/crf/form/item/result/saveBatch', {
    token: crc1,
    headers: P,
    json: { ptsId, visitId: v1.visitId, formId: v1.forms.find((f) => f.code === 'DM')!.formId, entryMode: 0, items: [{ variable: 'SEX', value: '2' }] },
  });
  expect(saved.status).toBe(200);
  instanceId = saved.body.data.instance.id;
  userId = Number((await s.database.executeSql(`select id from users where account = 'crc1'`)).rows[0]!.id);
});
afterAll(async () => {
  await s?.stop();
});

describe('history references (migration 0054)', () => {
  it('accepts rows naming an existing instance and user (one statement of many rows, and a participant without user)', async () => {
    await s.database.executeSql(`${history(instanceId, userId, 'A')}, (${instanceId}, 'B', null, '{"v": 2}', 0, 1, ${userId}, 'test')`);
    await s.database.executeSql(history(instanceId, null, 'C'));
    const n = await s.database.executeSql(`select count(*)::int as n from crf_value_history where instance_id = ${instanceId}`);
    expect(n.rows[0]!.n).toBe(4);
  });

  it('refuses a row naming a missing instance or user with a foreign-key violation, writing nothing', async () => {
    expect(await codeOf(s.database.executeSql(history(999_999_999, userId)))).toBe(INSTANCE_REF);
    expect(await codeOf(s.database.executeSql(history(instanceId, 999_999_999)))).toBe(USER_REF);
    // one bad row among good ones fails the whole statement
    expect(await codeOf(s.database.executeSql(`${history(instanceId, userId, 'D')}, (999999999, 'E', null, null, 0, 1, null, 'x')`))).toBe(INSTANCE_REF);
    expect(await codeOf(s.database.executeSql(`update crf_value_history set instance_id = 999999999 where instance_id = ${instanceId} and variable = 'A'`))).toBe(INSTANCE_REF);
    const n = await s.database.executeSql(`select count(*)::int as n from crf_value_history where variable in ('D', 'E') or instance_id = 999999999`);
    expect(n.rows[0]!.n).toBe(0);
  });

  it('refuses deleting or renumbering a referenced instance or user', async () => {
    // (as the owner: the application's role may not delete these at all). An instance and a user that only history
    // rows name, so that no other table's foreign key refuses first
    const owner = (q: string) => s.database.ownerExecuteSql(q);
    const spare = async (repeat: number) =>
      Number(
        (
          await owner(`insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, repeat_no)
            select env, project_id, site_id, subject_id, visit_id, form_id, 1, ${repeat} from crf_instances where id = ${instanceId} returning id`)
        ).rows[0]!.id,
      );
    const user = Number((await owner(`insert into users (account, name, password_hash) values ('hist_ref', 'History Ref', 'x') returning id`)).rows[0]!.id);
    const named = await spare(97);
    await s.database.executeSql(history(named, user));
    expect(await codeOf(owner(`delete from crf_instances where id = ${named}`))).toBe(INSTANCE_REF);
    expect(await codeOf(owner(`update crf_instances set id = 999999998 where id = ${named}`))).toBe(INSTANCE_REF);
    expect(await codeOf(owner(`delete from users where id = ${user}`))).toBe(USER_REF);
    expect(await codeOf(owner(`update users set id = 999999997 where id = ${user}`))).toBe(USER_REF);
    // an update that keeps the id is not a change of the reference
    await owner(`update crf_instances set status = status where id = ${named}`);
    await owner(`update users set name = name where id = ${user}`);
    // an instance or user no history names can go (nothing else held the deletes above)
    expect(await codeOf(owner(`delete from crf_instances where id = ${await spare(98)}`))).toBeUndefined();
    const unused = Number((await owner(`insert into users (account, name, password_hash) values ('hist_free', 'Free', 'x') returning id`)).rows[0]!.id);
    expect(await codeOf(owner(`delete from users where id = ${unused}`))).toBeUndefined();
  });

  it.skipIf(!process.env.DATABASE_URL)('a delete racing an insert leaves no orphan, whichever commits first (PostgreSQL server)', async () => {
    const url = s.config.databaseUrl!;
    const a = new pg.Client({ connectionString: url });
    const b = new pg.Client({ connectionString: url });
    await a.connect();
    await b.connect();
    try {
      const fresh = async () =>
        Number(
          (
            await a.query(`insert into crf_instances (env, project_id, site_id, subject_id, visit_id, form_id, status, repeat_no)
              select env, project_id, site_id, subject_id, visit_id, form_id, 1, (select coalesce(max(repeat_no), 0) + 1 from crf_instances)
                from crf_instances where id = ${instanceId} returning id`)
          ).rows[0]!.id,
        );
      // 1. the insert first (uncommitted), then the delete: the delete waits for the insert's lock and is refused
      const x = await fresh();
      await a.query('begin');
      await a.query(history(x, userId));
      await b.query('begin');
      const deleting = codeOf(b.query(`delete from crf_instances where id = ${x}`));
      await new Promise((r) => setTimeout(r, 200));
      await a.query('commit');
      expect(await deleting).toBe(INSTANCE_REF);
      await b.query('rollback');
      // 2. the delete first (uncommitted), then the insert: the insert waits, and is refused once the delete commits
      const y = await fresh();
      await b.query('begin');
      await b.query(`delete from crf_instances where id = ${y}`);
      await a.query('begin');
      const inserting = codeOf(a.query(history(y, userId)));
      await new Promise((r) => setTimeout(r, 200));
      await b.query('commit');
      expect(await inserting).toBe(INSTANCE_REF);
      await a.query('rollback');
      const orphans = await a.query(`select count(*)::int as n from crf_value_history h where not exists (select 1 from crf_instances i where i.id = h.instance_id)`);
      expect(orphans.rows[0].n).toBe(0);
    } finally {
      await a.end();
      await b.end();
    }
  });
});
