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
  return { title: m.title, content: m.content };
}
