/**
 * The demo study (idempotent): one organisation per hospital plus the central organisation, a demo project
 * with two sites in each environment, roles with sensible permission sets, and a user for each login type.
 * Every demo user's password is DEMO_PASSWORD.
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { ALL_PERMISSIONS, ENVS, type Env, type Permission } from '@esource/shared';
import type { Db, Tx } from '../db/client';
import {
  departments,
  organizations,
  permissionGroups,
  projectMembers,
  projectMemberSites,
  projects,
  rolePermissions,
  roles,
  sites,
  users,
} from '../db/schema';
import { hashPasswordDigest } from '../modules/auth/auth.service';
import { recordAudit } from '../modules/audit/audit.service';
import { seedDemoDesign } from './seed-design';
import { seedDemoDictionaries } from './seed-dictionaries';

export const DEMO_PASSWORD = 'Demo@123456';
export const DEMO_PROJECT_NO = 'DEMO-001';

const byModule = (...modules: string[]) => ALL_PERMISSIONS.filter((p) => modules.includes(p.split(':')[0]!));
const queries = (...modules: string[]) => byModule(...modules).filter((p) => /:(query|export)$/.test(p));
/** Direct identifiers in full are for site staff only; central and monitoring roles see them masked. */
const noIdentifiers = (pms: Permission[]) => pms.filter((p) => p !== 'patient:identifier:query');

interface RoleSeed {
  code: string;
  name: string;
  nameEn: string;
  kind: 'system' | 'project';
  isDm?: boolean;
  envs: Env[];
  pms: Permission[];
}

export const DEMO_ROLES: RoleSeed[] = [
  {
    code: 'ADMIN',
    name: '系统管理员',
    nameEn: 'Administrator',
    kind: 'system',
    envs: ['DEV', 'UAT', 'PRO'],
    pms: [...byModule('system', 'syslog', 'apply'), 'project:info:query', 'project:info:add', 'project:search:query'],
  },
  {
    code: 'CENTRE',
    name: '中心用户',
    nameEn: 'Central user',
    kind: 'system',
    envs: ['DEV', 'UAT', 'PRO'],
    pms: ['project:info:query', 'project:info:add', 'project:search:query'],
  },
  {
    code: 'DM',
    name: '数据管理员',
    nameEn: 'Data manager',
    kind: 'project',
    isDm: true,
    envs: ['DEV', 'UAT', 'PRO'],
    // certifying eCRF forms is the investigator's electronic signature: not the data manager's (who may still
    // uncertify, with a reason, to reopen data for correction)
    pms: noIdentifiers(
      byModule(
        'project', 'research', 'team', 'patient', 'padoc', 'crf', 'source', 'message', 'doubt', 'verification',
        'clinical', 'prolog', 'report', 'isf', 'edc',
      ),
    ).filter((p) => p !== 'crf:result:check'),
  },
  {
    code: 'CRA',
    name: '监查员',
    nameEn: 'Monitor (CRA)',
    kind: 'project',
    envs: ['UAT', 'PRO'],
    pms: [
      ...noIdentifiers(queries('project', 'research', 'team', 'patient', 'padoc', 'crf', 'source', 'message', 'doubt', 'verification', 'prolog', 'report', 'isf')),
      'doubt:querying:add',
      'doubt:querying:close',
      'verification:sdv:check',
      'verification:sdr:check',
      'syslog:audit-supervise-log:query',
      // casebooks of the subjects they monitor (issue 14 item 6)
      'crf:casebook:export',
    ],
  },
  {
    code: 'CRC',
    name: '研究协调员',
    nameEn: 'Site coordinator (CRC)',
    kind: 'project',
    envs: ['UAT', 'PRO'],
    pms: [
      'project:info:query',
      'research:page:query',
      ...byModule('patient'),
      ...queries('padoc', 'message', 'doubt', 'isf'),
      'crf:form:query',
      'crf:result:query',
      'crf:result:save',
      'crf:prefill:query',
      'crf:prefill:execute',
      'source:file:query',
      'source:file:upload',
      'source:file:submit',
      'source:file:withdraw',
      'source:file:original',
      'source:extract:query',
      'source:extract:execute',
      // the values pre-filled from the hospital and their sources, for their own sites' subjects
      'report:traceability:query',
      'doubt:querying:reply',
      'isf:file:upload',
      'project:visit:query',
      'research:schedule:query',
      // their own sites' subjects' casebooks (issue 14 item 6)
      'crf:casebook:export',
    ],
  },
  {
    code: 'PI',
    name: '研究者',
    nameEn: 'Investigator (PI)',
    kind: 'project',
    envs: ['UAT', 'PRO'],
    pms: [
      'project:info:query',
      'research:page:query',
      'patient:page:query',
      'patient:identifier:query',
      ...queries('padoc', 'crf', 'message', 'doubt', 'isf'),
      'crf:result:check',
      'crf:result:uncheck',
      'doubt:querying:reply',
      'clinical:judge:query',
      'clinical:judge:update',
      'clinical:signal:query',
      'clinical:signal:export',
      'source:file:query',
      'source:file:original',
      'source:extract:query',
      'project:visit:query',
      'research:schedule:query',
      'crf:casebook:export',
    ],
  },
  {
    code: 'AE',
    name: '不良事件专员',
    nameEn: 'AE reviewer',
    kind: 'project',
    envs: ['UAT', 'PRO'],
    pms: ['project:info:query', 'patient:page:query', 'clinical:judge:query', 'clinical:judge:update', 'clinical:signal:query', 'clinical:signal:export', 'padoc:all-doc:query'],
  },
];

interface UserSeed {
  account: string;
  name: string;
  loginTypes: number[];
  org: 'central' | 'a' | 'b';
  systemRole?: string;
  phone: string;
  /** project role and sites ('all' or site keys) per environment */
  member?: { role: string; sites: 'all' | ('a' | 'b')[]; envs: Env[] };
}

export const DEMO_USERS: UserSeed[] = [
  { account: 'admin', name: 'System Admin', loginTypes: [1], org: 'central', systemRole: 'ADMIN', phone: '13800000001' },
  {
    account: 'dm',
    name: 'Dana Manager',
    loginTypes: [1],
    org: 'central',
    systemRole: 'CENTRE',
    phone: '13800000002',
    member: { role: 'DM', sites: 'all', envs: ['DEV', 'UAT', 'PRO'] },
  },
  {
    account: 'cra',
    name: 'Chris Monitor',
    loginTypes: [2],
    org: 'central',
    phone: '13800000003',
    member: { role: 'CRA', sites: 'all', envs: ['UAT', 'PRO'] },
  },
  {
    account: 'crc1',
    name: 'Amy Coordinator',
    loginTypes: [3],
    org: 'a',
    phone: '13800000004',
    member: { role: 'CRC', sites: ['a'], envs: ['UAT', 'PRO'] },
  },
  {
    account: 'crc2',
    name: 'Ben Coordinator',
    loginTypes: [3],
    org: 'b',
    phone: '13800000005',
    member: { role: 'CRC', sites: ['b'], envs: ['UAT', 'PRO'] },
  },
  {
    account: 'pi',
    name: 'Dr. Ivy Investigator',
    loginTypes: [3],
    org: 'a',
    phone: '13800000006',
    member: { role: 'PI', sites: ['a'], envs: ['UAT', 'PRO'] },
  },
  {
    account: 'ae',
    name: 'Eve Safety',
    loginTypes: [4],
    org: 'central',
    phone: '13800000007',
    member: { role: 'AE', sites: 'all', envs: ['UAT', 'PRO'] },
  },
];

const ORGS = {
  central: { name: 'eSource Central Office', code: 'CENTRAL' },
  a: { name: 'Demo City Hospital', code: 'DCH' },
  b: { name: 'Demo University Hospital', code: 'DUH' },
} as const;

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

async function upsertOrg(tx: Tx, o: { name: string; code: string }): Promise<number> {
  const [found] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.code, o.code));
  if (found) return found.id;
  const [row] = await tx.insert(organizations).values(o).returning({ id: organizations.id });
  for (const name of ['Cardiology', 'Oncology', 'Clinical Research Office']) {
    await tx.insert(departments).values({ orgId: row!.id, name });
  }
  return row!.id;
}

/** Seeds the demo; returns true when it created anything. Safe to run on every start. */
export async function seedDemo(db: Db): Promise<boolean> {
  const [already] = await db.select({ id: projects.id }).from(projects).where(eq(projects.no, DEMO_PROJECT_NO));
  if (already) {
    // the dictionaries came later than the demo study: a database seeded before them gets them now
    const dictionariesAdded = await seedDemoDictionaries(db);
    return (await seedDemoDesign(db, already.id)) || dictionariesAdded;
  }
  const passwordHash = await hashPasswordDigest(sha256Hex(DEMO_PASSWORD));
  await db.transaction(async (tx) => {
    const orgIds = {
      central: await upsertOrg(tx, ORGS.central),
      a: await upsertOrg(tx, ORGS.a),
      b: await upsertOrg(tx, ORGS.b),
    };
    await tx
      .insert(permissionGroups)
      .values([
        { name: 'Default', description: 'No login time restriction', loginWindows: [] },
        {
          name: 'Office hours',
          description: 'Mon–Fri 08:00–20:00 (Asia/Shanghai)',
          loginWindows: [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '20:00' }],
        },
      ])
      .onConflictDoNothing();

    const roleIds = new Map<string, number>();
    for (const r of DEMO_ROLES) {
      let [row] = await tx.select({ id: roles.id }).from(roles).where(eq(roles.code, r.code));
      if (!row) {
        [row] = await tx
          .insert(roles)
          .values({
            code: r.code,
            name: r.name,
            nameEn: r.nameEn,
            kind: r.kind,
            isDm: r.isDm ?? false,
            envDev: r.envs.includes('DEV'),
            envUat: r.envs.includes('UAT'),
            envPro: r.envs.includes('PRO'),
          })
          .returning({ id: roles.id });
        const pms = [...new Set(r.pms)];
        await tx.insert(rolePermissions).values(pms.map((permission) => ({ roleId: row!.id, permission })));
      }
      roleIds.set(r.code, row!.id);
    }

    const [project] = await tx
      .insert(projects)
      .values({ no: DEMO_PROJECT_NO, name: 'eSource demo study: hypertension registry', status: 1, scene: 2 })
      .returning({ id: projects.id });
    const siteIds = new Map<string, number>();
    for (const env of ENVS) {
      for (const [key, no] of [
        ['a', '01'],
        ['b', '02'],
      ] as const) {
        const [s] = await tx
          .insert(sites)
          .values({ env, projectId: project!.id, orgId: orgIds[key], siteNo: no, name: ORGS[key].name })
          .returning({ id: sites.id });
        siteIds.set(`${env}:${key}`, s!.id);
      }
    }

    const now = new Date();
    for (const u of DEMO_USERS) {
      const [existing] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.account}) = ${u.account}`);
      const userId =
        existing?.id ??
        (
          await tx
            .insert(users)
            .values({
              account: u.account,
              name: u.name,
              phone: u.phone,
              mail: `${u.account}@demo.esource.local`,
              orgId: orgIds[u.org],
              loginTypes: u.loginTypes,
              systemRoleId: u.systemRole ? roleIds.get(u.systemRole)! : null,
              passwordHash,
              passwordChangedAt: now,
            })
            .returning({ id: users.id })
        )[0]!.id;
      if (!u.member) continue;
      for (const env of u.member.envs) {
        const [m] = await tx
          .insert(projectMembers)
          .values({
            env,
            projectId: project!.id,
            userId,
            roleId: roleIds.get(u.member.role)!,
            allSites: u.member.sites === 'all',
          })
          .returning({ id: projectMembers.id });
        if (u.member.sites !== 'all') {
          await tx
            .insert(projectMemberSites)
            .values(u.member.sites.map((k) => ({ memberId: m!.id, siteId: siteIds.get(`${env}:${k}`)! })));
        }
      }
    }
    // the data manager created the demo study: automatic work with no user of its own (the daily extraction's
    // pre-fill) acts as the project's creator when no pre-fill schedule names an owner
    const [dmUser] = await tx.select({ id: users.id }).from(users).where(eq(users.account, 'dm'));
    if (dmUser) await tx.update(projects).set({ createdBy: dmUser.id }).where(eq(projects.id, project!.id));
    // PIs of the demo sites
    const [pi] = await tx.select({ id: users.id }).from(users).where(eq(users.account, 'pi'));
    if (pi) {
      for (const env of ENVS) {
        await tx.update(sites).set({ piUserId: pi.id }).where(and(eq(sites.id, siteIds.get(`${env}:a`)!)));
      }
    }
    await recordAudit(tx, { userId: null, userName: 'seed', requestId: null, ip: null, env: null }, [
      { action: 'seed', entity: 'project', entityId: project!.id, newValue: DEMO_PROJECT_NO, projectId: project!.id },
    ]);
  });
  const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.no, DEMO_PROJECT_NO));
  await seedDemoDesign(db, p!.id);
  await seedDemoDictionaries(db);
  return true;
}
