/**
 * System users (module 2, spec §2 User Management, §5, §7): list, detail, add with a generated initial
 * password, update, enable/disable, messages, and Excel import (all or nothing) and export.
 * Every write records its audit rows (old and new values) in the same transaction.
 */
import { createHash, randomInt } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  checkPasswordRules,
  userAddRequest,
  type Language,
  type UserAddRequest,
  type UserAddResponse,
  type UserDetail,
  type UserFilters,
  type UserImportColumn,
  type UserImportResponse,
  type UserListQuery,
  type UserListRow,
  type UserPickerRow,
  type UserUpdateRequest,
} from '@esource/shared';
import { and, eq, isNull } from 'drizzle-orm';
import { sessions, users } from '../../db/schema';
import type { Db } from '../../db/client';
import type { AuthedContext } from '../../lib/context';
import { AppError, notFound, type FieldProblem } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { parseRow } from '../../lib/validate';
import { actorOf, diffEntries, recordAudit, type AuditEntry } from '../audit/audit.service';
import { hashPasswordDigest } from '../auth/auth.service';
import * as repo from './users.repo';
import { buildTemplate, readUserSheet, streamUserExport, type SheetRow } from './users.excel';
import { offsetOf, pageOf } from '../../lib/page';
import { isUniqueViolation } from '../../lib/db-errors';

/** The user fields the audit trail follows, field by field. */
const AUDIT_FIELDS = [
  'account',
  'name',
  'phone',
  'mail',
  'idNumber',
  'orgId',
  'deptId',
  'loginTypes',
  'systemRoleId',
  'permissionGroupId',
] as const;

const EXPORT_BATCH = 1000;
const EXPORT_MAX_ROWS = 100_000;

// Look-alike characters (l/1, O/0, I) are left out so that a password read off a screen is typed right.
const LOWER = 'abcdefghijkmnpqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const SPECIALS = '~!@#$%^&*';

/** A random initial password that meets the rules of spec §5 (8–30 characters; digit, letter and special). */
export function generateInitialPassword(length = 12): string {
  const pick = (s: string) => s[randomInt(s.length)]!;
  const all = LOWER + UPPER + DIGITS + SPECIALS;
  for (;;) {
    const chars = [pick(LOWER), pick(UPPER), pick(DIGITS), pick(SPECIALS)];
    while (chars.length < length) chars.push(pick(all));
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j]!, chars[i]!];
    }
    const pw = chars.join('');
    if (checkPasswordRules(pw) === null) return pw;
  }
}

/** argon2id of SHA-256(password): what login compares the client's digest with. */
async function hashInitialPassword(pw: string): Promise<string> {
  return hashPasswordDigest(createHash('sha256').update(pw).digest('hex'));
}

function validationError(lang: Language, problems: FieldProblem[]): AppError {
  const t = translator(lang);
  const first = problems[0]!;
  return new AppError('VALIDATION', { detail: t('validation.field', { field: first.field, message: first.message }) }, problems);
}

function iso(d: Date | null): string | null {
  return d ? d.toISOString() : null;
}

function toListRow(r: repo.UserListRecord, now = new Date()): UserListRow {
  return {
    id: r.id,
    account: r.account,
    name: r.name,
    phone: r.phone,
    mail: r.mail,
    orgId: r.orgId,
    orgName: r.orgName,
    deptId: r.deptId,
    deptName: r.deptName,
    loginTypes: r.loginTypes,
    systemRoleId: r.systemRoleId,
    systemRoleCode: r.systemRoleCode,
    systemRoleName: r.systemRoleName,
    permissionGroupId: r.permissionGroupId,
    permissionGroupName: r.permissionGroupName,
    status: r.status,
    locked: r.lockedUntil !== null && r.lockedUntil > now,
    lastLoginTime: iso(r.lastLoginAt),
    createTime: r.createdAt.toISOString(),
    updateTime: r.updatedAt.toISOString(),
  };
}

/** The audited view of a user's fields (arrays sorted so that a reordering is not reported as a change). */
function auditView(u: {
  account?: string;
  name: string;
  phone: string | null;
  mail: string | null;
  idNumber: string | null;
  orgId: number | null;
  deptId: number | null;
  loginTypes: number[];
  systemRoleId: number | null;
  permissionGroupId: number | null;
}): Record<string, unknown> {
  return { ...u, loginTypes: [...u.loginTypes].sort((a, b) => a - b) };
}

type References = Pick<UserAddRequest, 'orgId' | 'deptId' | 'systemRoleId' | 'permissionGroupId'>;

export class UsersService {
  constructor(private readonly db: Db) {}

  async list(q: UserListQuery) {
    const [totalCount, rows] = await Promise.all([
      repo.countUsers(this.db, q),
      repo.listUsers(this.db, q, q.pageSize, offsetOf(q)),
    ]);
    const now = new Date();
    return pageOf(q, totalCount, rows.map((r) => toListRow(r, now)));
  }

  picker(keyword: string | undefined, limit: number): Promise<UserPickerRow[]> {
    return repo.pickUsers(this.db, keyword, limit);
  }

  /** One user; the read is audited because the detail shows the ID number (DESIGN §4). */
  async detail(ctx: AuthedContext, id: number): Promise<UserDetail> {
    const r = await repo.findUserDetail(this.db, id);
    if (!r) throw notFound('user');
    await this.db.transaction((tx) => recordAudit(tx, actorOf(ctx), [{ action: 'user.read', entity: 'user', entityId: id }]));
    return { ...toListRow(r), idNumber: r.idNumber, imgUrl: r.imgUrl, passwordChangedAt: iso(r.passwordChangedAt) };
  }

  /**
   * Checks what a user refers to: an enabled organisation, a department of that organisation, an enabled role of
   * kind 'system', an enabled permission group. Answers the problems, field by field, translated.
   */
  private async referenceProblems(lang: Language, input: References): Promise<FieldProblem[]> {
    const t = translator(lang);
    const out: FieldProblem[] = [];
    const [org, dept, role, group] = await Promise.all([
      repo.findOrg(this.db, input.orgId),
      input.deptId ? repo.findDept(this.db, input.deptId) : null,
      input.systemRoleId ? repo.findRole(this.db, input.systemRoleId) : null,
      input.permissionGroupId ? repo.findPermissionGroup(this.db, input.permissionGroupId) : null,
    ]);
    if (!org || org.status !== 1) out.push({ field: 'orgId', message: t('validation.orgNotFound') });
    if (input.deptId && (!dept || dept.orgId !== input.orgId || dept.status !== 1)) {
      out.push({ field: 'deptId', message: t('validation.deptNotInOrg') });
    }
    if (input.systemRoleId && (!role || role.kind !== 'system' || role.status !== 1)) {
      out.push({ field: 'systemRoleId', message: t('validation.roleNotSystem') });
    }
    if (input.permissionGroupId && (!group || group.status !== 1)) {
      out.push({ field: 'permissionGroupId', message: t('validation.permissionGroupNotFound') });
    }
    return out;
  }

  private referenceError(problems: FieldProblem[]): AppError {
    return new AppError('INVALID_REFERENCE', { field: problems[0]!.field }, problems);
  }

  private duplicateAccount(lang: Language, account: string): AppError {
    return new AppError('DUPLICATE', { field: 'account', value: account }, [
      { field: 'account', message: translator(lang)('validation.accountTaken') },
    ]);
  }

  async add(ctx: AuthedContext, input: UserAddRequest): Promise<UserAddResponse> {
    const problems = await this.referenceProblems(ctx.language, input);
    if (problems.length) throw this.referenceError(problems);
    if ((await repo.existingAccounts(this.db, [input.account])).size > 0) throw this.duplicateAccount(ctx.language, input.account);
    const initialPassword = generateInitialPassword();
    const passwordHash = await hashInitialPassword(initialPassword);
    const values = {
      account: input.account,
      name: input.name,
      phone: input.phone,
      mail: input.mail ?? null,
      idNumber: input.idNumber ?? null,
      orgId: input.orgId,
      deptId: input.deptId ?? null,
      loginTypes: input.loginTypes,
      systemRoleId: input.systemRoleId ?? null,
      permissionGroupId: input.permissionGroupId ?? null,
    };
    try {
      const id = await this.db.transaction(async (tx) => {
        // passwordChangedAt stays null: the user is asked to change the initial password at first login
        const [row] = await repo.insertUsers(tx, [{ ...values, passwordHash, passwordChangedAt: null, status: 1 }]);
        await recordAudit(tx, actorOf(ctx), [
          ...diffEntries({ action: 'user.add', entity: 'user', entityId: row!.id }, null, auditView(values), AUDIT_FIELDS),
          { action: 'user.add', entity: 'user', entityId: row!.id, field: 'status', newValue: 1 },
        ]);
        return row!.id;
      });
      return { id, account: input.account, initialPassword };
    } catch (err) {
      // two administrators adding the same account at once: the unique index decides
      if (isUniqueViolation(err)) throw this.duplicateAccount(ctx.language, input.account);
      throw err;
    }
  }

  async update(ctx: AuthedContext, input: UserUpdateRequest): Promise<UserDetail> {
    const problems = await this.referenceProblems(ctx.language, input);
    if (problems.length) throw this.referenceError(problems);
    const after = {
      name: input.name,
      phone: input.phone,
      mail: input.mail ?? null,
      idNumber: input.idNumber ?? null,
      orgId: input.orgId,
      deptId: input.deptId ?? null,
      loginTypes: input.loginTypes,
      systemRoleId: input.systemRoleId ?? null,
      permissionGroupId: input.permissionGroupId ?? null,
    };
    await this.db.transaction(async (tx) => {
      const before = await repo.lockUser(tx, input.id);
      if (!before) throw notFound('user');
      if (input.updateTime && input.updateTime !== before.updatedAt.toISOString()) {
        const last = await repo.lastChangeOf(tx, input.id);
        throw new AppError('STALE_WRITE', {
          user: last?.userName ?? '-',
          time: (last?.createdAt ?? before.updatedAt).toISOString(),
        });
      }
      const entries = diffEntries({ action: 'user.update', entity: 'user', entityId: input.id }, auditView(before), auditView({ ...before, ...after }), AUDIT_FIELDS);
      if (entries.length === 0) return;
      await repo.updateUser(tx, input.id, { ...after, updatedAt: new Date() });
      await recordAudit(tx, actorOf(ctx), entries);
    });
    const r = await repo.findUserDetail(this.db, input.id);
    if (!r) throw notFound('user');
    return { ...toListRow(r), idNumber: r.idNumber, imgUrl: r.imgUrl, passwordChangedAt: iso(r.passwordChangedAt) };
  }

  /** Enables or disables a user; disabling ends their open sessions at once. Nobody may disable themself. */
  async setStatus(ctx: AuthedContext, input: { id: number; status: number; reason: string }): Promise<{ id: number; status: number; endedSessions: number }> {
    if (input.status === 0 && input.id === ctx.user.id) {
      throw validationError(ctx.language, [{ field: 'id', message: translator(ctx.language)('validation.cannotDisableSelf') }]);
    }
    return this.db.transaction(async (tx) => {
      const before = await repo.lockUser(tx, input.id);
      if (!before) throw notFound('user');
      const now = new Date();
      const entries: AuditEntry[] = [];
      if (before.status !== input.status) {
        await repo.updateUser(tx, input.id, { status: input.status, updatedAt: now });
        entries.push({
          action: 'user.status',
          entity: 'user',
          entityId: input.id,
          field: 'status',
          oldValue: before.status,
          newValue: input.status,
          reason: input.reason,
        });
      }
      let endedSessions = 0;
      if (input.status === 0) {
        endedSessions = await repo.endSessions(tx, input.id, 'disabled', now);
        if (endedSessions > 0) {
          entries.push({ action: 'session.end', entity: 'user', entityId: input.id, newValue: endedSessions, reason: 'disabled' });
        }
      }
      await recordAudit(tx, actorOf(ctx), entries);
      return { id: input.id, status: input.status, endedSessions };
    });
  }

  /** A system message to each user, in the caller's environment (it shows in their message badge). */
  async sendMessage(ctx: AuthedContext, input: { userIds: number[]; title: string; content: string }): Promise<{ sent: number }> {
    const ids = [...new Set(input.userIds)];
    const found = await repo.existingUserIds(this.db, ids);
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) {
      throw validationError(ctx.language, [
        { field: 'userIds', message: translator(ctx.language)('validation.usersNotFound', { ids: missing.join(', ') }) },
      ]);
    }
    return this.db.transaction(async (tx) => {
      const rows = await repo.insertMessages(
        tx,
        ids.map((userId) => ({ env: ctx.env, projectId: null, userId, kind: 'system', senderId: ctx.user.id, title: input.title, content: input.content })),
      );
      await recordAudit(
        tx,
        actorOf(ctx),
        rows.map((m) => ({ action: 'message.send', entity: 'message', entityId: m.id, field: 'userId', newValue: m.userId, reason: input.title })),
      );
      return { sent: rows.length };
    });
  }

  /**
   * Invites (or re-invites) a user: a new initial password, returned once, that must be changed at the first
   * login; the user's open sessions end and an invitation message is left for them.
   */
  async invite(ctx: AuthedContext, id: number): Promise<{ id: number; account: string; initialPassword: string }> {
    const [u] = await this.db.select().from(users).where(eq(users.id, id));
    if (!u) throw notFound('user');
    if (u.status !== 1) throw new AppError('ACCOUNT_DISABLED');
    const initialPassword = generateInitialPassword();
    const passwordHash = await hashInitialPassword(initialPassword);
    await this.db.transaction(async (tx) => {
      const now = new Date();
      await tx.update(users).set({ passwordHash, passwordChangedAt: null, failedLoginCount: 0, lockedUntil: null, updatedAt: now }).where(eq(users.id, id));
      await tx.update(sessions).set({ endedAt: now, endReason: 'invite' }).where(and(eq(sessions.userId, id), isNull(sessions.endedAt)));
      await repo.insertMessages(tx, [{ env: ctx.env, projectId: null, userId: id, kind: 'invite', senderId: ctx.user.id, title: 'invite', content: u.account }]);
      await recordAudit(tx, actorOf(ctx), [{ action: 'user.invite', entity: 'user', entityId: id, field: 'password', newValue: 'initial password issued' }]);
    });
    return { id, account: u.account, initialPassword };
  }

  // ── Excel ──

  async template(lang: Language): Promise<Buffer> {
    const d = await repo.loadDictionaries(this.db);
    const org = d.orgs.find((o) => o.status === 1 && d.depts.some((x) => x.orgId === o.id)) ?? d.orgs.find((o) => o.status === 1);
    const dept = org ? d.depts.find((x) => x.orgId === org.id && x.status === 1) : undefined;
    const group = d.groups.find((g) => g.status === 1);
    const example: Record<UserImportColumn, string> = {
      account: 'zhang.san',
      name: lang === 'zh_CN' ? '张三' : 'Zhang San',
      phone: '13800138000',
      mail: 'zhang.san@example.com',
      idNumber: '11010519491231002X',
      orgName: org?.name ?? '',
      deptName: dept?.name ?? '',
      loginTypes: '1',
      systemRoleCode: '',
      permissionGroupName: group?.name ?? '',
    };
    return buildTemplate(lang, example);
  }

  /**
   * Imports users from an .xlsx, all or nothing: every row is checked (the rules of add, plus duplicates inside
   * the file and against the database); with any problem nothing is written and every bad row and field is
   * reported; otherwise all users are inserted in one transaction with their audit rows.
   */
  async importWorkbook(ctx: AuthedContext, file: Buffer): Promise<UserImportResponse> {
    const lang = ctx.language;
    const t = translator(lang);
    const sheet = await readUserSheet(file, lang);
    const dict = await repo.loadDictionaries(this.db);
    const taken = await repo.existingAccounts(this.db, sheet.map((r) => r.values.account).filter((a) => a !== ''));
    const problems: FieldProblem[] = [];
    const firstRowOf = new Map<string, number>();
    const valid: { row: SheetRow; input: UserAddRequest }[] = [];
    for (const row of sheet) {
      const rowProblems = this.checkRow(lang, row, dict);
      const { account } = row.values;
      if (account !== '' && !rowProblems.some((p) => p.field === 'account')) {
        const key = account.toLowerCase();
        const first = firstRowOf.get(key);
        if (first !== undefined) rowProblems.push({ field: 'account', message: t('validation.accountDuplicateInFile', { row: first }) });
        else {
          firstRowOf.set(key, row.rowNo);
          if (taken.has(key)) rowProblems.push({ field: 'account', message: t('validation.accountTaken') });
        }
      }
      if (rowProblems.length) {
        for (const p of rowProblems) problems.push({ field: `row ${row.rowNo}: ${p.field}`, message: p.message });
      } else valid.push({ row, input: this.resolved(row, dict) });
    }
    if (problems.length) throw validationError(lang, problems);

    const prepared = await Promise.all(
      valid.map(async ({ input }) => {
        const initialPassword = generateInitialPassword();
        return { input, initialPassword, passwordHash: await hashInitialPassword(initialPassword) };
      }),
    );
    try {
      await this.db.transaction(async (tx) => {
        const inserted = await repo.insertUsers(
          tx,
          prepared.map(({ input, passwordHash }) => ({
            account: input.account,
            name: input.name,
            phone: input.phone,
            mail: input.mail ?? null,
            idNumber: input.idNumber ?? null,
            orgId: input.orgId,
            deptId: input.deptId ?? null,
            loginTypes: input.loginTypes,
            systemRoleId: input.systemRoleId ?? null,
            permissionGroupId: input.permissionGroupId ?? null,
            passwordHash,
            passwordChangedAt: null,
            status: 1,
          })),
        );
        const entries: AuditEntry[] = [];
        inserted.forEach((row, i) => {
          const { input } = prepared[i]!;
          const view = auditView({
            account: input.account,
            name: input.name,
            phone: input.phone,
            mail: input.mail ?? null,
            idNumber: input.idNumber ?? null,
            orgId: input.orgId,
            deptId: input.deptId ?? null,
            loginTypes: input.loginTypes,
            systemRoleId: input.systemRoleId ?? null,
            permissionGroupId: input.permissionGroupId ?? null,
          });
          entries.push(
            ...diffEntries({ action: 'user.add', entity: 'user', entityId: row.id, reason: 'import' }, null, view, AUDIT_FIELDS),
            { action: 'user.add', entity: 'user', entityId: row.id, field: 'status', newValue: 1, reason: 'import' },
          );
        });
        await recordAudit(tx, actorOf(ctx), entries);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        // an account was added by someone else between the check and the insert: nothing was imported
        throw new AppError('CONFLICT', { detail: t('validation.accountTaken') });
      }
      throw err;
    }
    return { imported: prepared.length, users: prepared.map((p) => ({ account: p.input.account, initialPassword: p.initialPassword })) };
  }

  private static readonly FIELD_OF: Record<string, UserImportColumn> = {
    orgId: 'orgName',
    deptId: 'deptName',
    systemRoleId: 'systemRoleCode',
    permissionGroupId: 'permissionGroupName',
  };

  /** The problems of one sheet row (column keys as fields, messages translated). */
  private checkRow(lang: Language, row: SheetRow, dict: repo.Dictionaries): FieldProblem[] {
    const t = translator(lang);
    const v = row.values;
    const out: FieldProblem[] = [];
    // the same field rules as add; an empty required cell reads as missing ("required")
    const blankToMissing = (s: string) => (s === '' ? undefined : s);
    parseRow(
      userAddRequest.pick({ account: true, name: true, phone: true, mail: true, idNumber: true, loginTypes: true }),
      {
        account: blankToMissing(v.account),
        name: blankToMissing(v.name),
        phone: blankToMissing(v.phone),
        mail: v.mail,
        idNumber: v.idNumber,
        loginTypes: v.loginTypes.replace(/[，、;；\s]+/g, ','),
      },
      lang,
      out,
    );
    const refs = this.lookup(v, dict);
    if (v.orgName === '') out.push({ field: 'orgName', message: t('validation.required') });
    else if (refs.org === 'ambiguous') out.push({ field: 'orgName', message: t('validation.orgAmbiguous') });
    else if (!refs.org) out.push({ field: 'orgName', message: t('validation.orgNotFound') });
    if (v.deptName !== '' && refs.org && refs.org !== 'ambiguous' && !refs.dept) {
      out.push({ field: 'deptName', message: t('validation.deptNotInOrg') });
    }
    if (v.systemRoleCode !== '' && !refs.role) out.push({ field: 'systemRoleCode', message: t('validation.roleNotSystem') });
    if (v.permissionGroupName !== '' && !refs.group) {
      out.push({ field: 'permissionGroupName', message: t('validation.permissionGroupNotFound') });
    }
    return out.map((p) => ({ ...p, field: UsersService.FIELD_OF[p.field] ?? p.field }));
  }

  /** Resolves the names in a row to enabled dictionary entries (organisation by code, else by unique name). */
  private lookup(v: Record<UserImportColumn, string>, dict: repo.Dictionaries) {
    const eq = (a: string | null, b: string) => a !== null && a.trim().toLowerCase() === b.toLowerCase();
    const orgs = dict.orgs.filter((o) => o.status === 1);
    let org: (typeof orgs)[number] | 'ambiguous' | undefined;
    if (v.orgName !== '') {
      const byCode = orgs.filter((o) => eq(o.code, v.orgName));
      const byName = orgs.filter((o) => eq(o.name, v.orgName));
      org = byCode.length === 1 ? byCode[0] : byName.length === 1 ? byName[0] : byName.length > 1 ? 'ambiguous' : undefined;
    }
    const dept =
      org && org !== 'ambiguous' && v.deptName !== ''
        ? dict.depts.find((d) => d.orgId === org.id && d.status === 1 && (eq(d.name, v.deptName) || eq(d.code, v.deptName)))
        : undefined;
    const role = v.systemRoleCode !== '' ? dict.systemRoles.find((r) => r.status === 1 && eq(r.code, v.systemRoleCode)) : undefined;
    const group = v.permissionGroupName !== '' ? dict.groups.find((g) => g.status === 1 && eq(g.name, v.permissionGroupName)) : undefined;
    return { org, dept, role, group };
  }

  /** A checked row as an add request. */
  private resolved(row: SheetRow, dict: repo.Dictionaries): UserAddRequest {
    const v = row.values;
    const refs = this.lookup(v, dict);
    const parsed = userAddRequest.pick({ account: true, name: true, phone: true, mail: true, idNumber: true, loginTypes: true }).parse({
      account: v.account,
      name: v.name,
      phone: v.phone,
      mail: v.mail,
      idNumber: v.idNumber,
      loginTypes: v.loginTypes.replace(/[，、;；\s]+/g, ','),
    });
    const org = refs.org;
    if (!org || org === 'ambiguous') throw new Error('resolved() called on a row that failed checkRow()');
    return {
      ...parsed,
      orgId: org.id,
      deptId: refs.dept?.id,
      systemRoleId: refs.role?.id,
      permissionGroupId: refs.group?.id,
    };
  }

  /** The filtered list as a streamed .xlsx; the export is audited (it carries phone numbers and mail). */
  async export(ctx: AuthedContext, filters: UserFilters, timeZone: string): Promise<Readable> {
    const total = Math.min(await repo.countUsers(this.db, filters), EXPORT_MAX_ROWS);
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [
        { action: 'user.export', entity: 'user', newValue: total, reason: JSON.stringify({ ...filters, timeZone }) },
      ]),
    );
    const db = this.db;
    async function* batches() {
      for (let offset = 0; offset < total; offset += EXPORT_BATCH) {
        const rows = await repo.listUsers(db, filters, Math.min(EXPORT_BATCH, total - offset), offset);
        if (rows.length === 0) return;
        yield rows;
      }
    }
    return streamUserExport(ctx.language, timeZone, batches());
  }
}
