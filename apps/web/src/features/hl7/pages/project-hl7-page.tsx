import { usePms, useSession } from '../../session';
import { Hl7MessagesView } from '../components/hl7-messages-view';

/**
 * /project/hl7Messages: the HL7 v2 messages routed to the current project in this environment (issue 11 item 1),
 * with their dead letters; source:config:update replays a dead letter, source:config:query only reads.
 */
export default function ProjectHl7Page() {
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  return <Hl7MessagesView where={{ scope: 'project', env, projectId }} canReplay={has('source:config:update')} />;
}
