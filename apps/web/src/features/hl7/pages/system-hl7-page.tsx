import { usePms, useSession } from '../../session';
import { Hl7MessagesView } from '../components/hl7-messages-view';

/**
 * /system/hl7Messages: HL7 v2 messages no project could be found for (unknown sender, unreadable header), for
 * system administrators; system:config:update replays a dead letter once its connection exists.
 */
export default function SystemHl7Page() {
  const has = usePms();
  const env = useSession((s) => s.env);
  return <Hl7MessagesView where={{ scope: 'system', env, projectId: null }} canReplay={has('system:config:update')} />;
}
