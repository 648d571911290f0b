/**
 * Query messages in the message centre (issue 13: "the message badge notifies the people concerned"), written in the
 * query step's transaction. A raised or reopened query goes to the members who answer queries at its site
 * (doubt:querying:reply); an answer goes to whoever raised the query. The message holds data
 * (`query:{"q":id,"e":event,"pts":…,"item":…,"text":…}`), worded in the reader's language by the web
 * (features/messages/message-text.ts).
 */
import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { messages, projectMemberSites, projectMembers, rolePermissions } from '../../db/schema';

export interface QueryNote {
  queryId: number;
  event: 'raise' | 'reopen' | 'reply';
  env: string;
  projectId: number;
  siteId: number;
  ptsNo: string;
  item: string | null;
  text: string | null;
  /** the query's raiser (for an answer) */
  raiserId: number | null;
  actorId: number;
}

/** The members of the project and environment who hold `permission` at the site. */
async function holders(tx: Tx, n: QueryNote, permission: string): Promise<number[]> {
  const rows = await tx
    .select({ userId: projectMembers.userId })
    .from(projectMembers)
    .innerJoin(rolePermissions, and(eq(rolePermissions.roleId, projectMembers.roleId), eq(rolePermissions.permission, permission)))
    .where(
      and(
        eq(projectMembers.projectId, n.projectId),
        eq(projectMembers.env, n.env),
        eq(projectMembers.status, 1),
        ne(projectMembers.userId, n.actorId),
        or(eq(projectMembers.allSites, true), sql`exists (select 1 from ${projectMemberSites} where ${projectMemberSites.memberId} = ${projectMembers.id} and ${projectMemberSites.siteId} = ${n.siteId})`),
      ),
    );
  return [...new Set(rows.map((r) => r.userId))];
}

export async function notifyQuery(tx: Tx, n: QueryNote): Promise<void> {
  const to = n.event === 'reply' ? (n.raiserId && n.raiserId !== n.actorId ? [n.raiserId] : []) : await holders(tx, n, 'doubt:querying:reply');
  if (to.length === 0) return;
  const content = `query:${JSON.stringify({ q: n.queryId, e: n.event, pts: n.ptsNo, item: n.item, text: (n.text ?? '').slice(0, 300) })}`;
  await tx.insert(messages).values(to.map((userId) => ({ env: n.env, projectId: n.projectId, userId, kind: 'query', senderId: n.actorId, title: `${n.ptsNo} · ${n.event}`, content })));
}

