import type { TFunction } from 'i18next';
import type { MessageRow } from '@esource/shared';

/**
 * What a message says, in the reader's language. Invitations are stored as data (the system invitation's
 * title 'invite' with the account; a project invitation with `invite:<role code>`), so they are worded here;
 * other messages are shown as their sender wrote them.
 */
export function messageText(m: MessageRow, t: TFunction<'messages'>): { title: string; content: string } {
  if (m.kind === 'invite' && m.title === 'invite') {
    return { title: t('invite.systemTitle'), content: t('invite.systemBody', { account: m.content }) };
  }
  if (m.kind === 'invite' && m.content.startsWith('invite:')) {
    const project = m.projectNo ? `${m.projectNo} ${m.projectName ?? ''}`.trim() : m.title;
    return {
      title: t('invite.projectTitle', { project }),
      content: t('invite.projectBody', { project, role: m.content.slice('invite:'.length) }),
    };
  }
  if (m.kind === 'query' && m.content.startsWith('query:')) {
    // a query raised, reopened or answered (issue 13), stored as data
    try {
      const q = JSON.parse(m.content.slice('query:'.length)) as { q: number; e: string; pts: string; item: string | null; text: string };
      const where = q.item ? `${q.pts} · ${q.item}` : q.pts;
      return { title: t(`query.${q.e}Title`, { id: q.q, where, defaultValue: m.title }), content: t(`query.${q.e}Body`, { id: q.q, where, text: q.text }) };
    } catch {
      return { title: m.title, content: m.content };
    }
  }
  if (m.kind === 'feedback' && m.content.startsWith('feedback:')) {
    // an answer to, or the close of, the reader's feedback (issue 15 item 5), stored as data
    try {
      const f = JSON.parse(m.content.slice('feedback:'.length)) as { f: number; e: 'answer' | 'close'; cat: string; quote: string; text: string };
      const category = t(`feedback.category.${f.cat}`, { defaultValue: f.cat });
      const vars = { id: f.f, category, quote: f.quote, text: f.text };
      return { title: t(`feedback.${f.e}Title`, vars), content: `${t(`feedback.${f.e}Body`, vars)}\n\n${t('feedback.more')}` };
    } catch {
      return { title: m.title, content: m.content };
    }
  }
  return { title: m.title, content: m.content };
}
