/** Every API route module of the server. */
import type { AppDeps } from './app-deps';
import type { RouteSpec } from './lib/route';
import { authRoutes } from './modules/auth/auth.routes';
import { progressRoutes } from './modules/progress/progress.routes';
import { messageRoutes } from './modules/messages/messages.routes';
import { projectRoutes } from './modules/projects/projects.routes';
import { siteRoutes } from './modules/sites/sites.routes';
import { systemRoutes } from './modules/system/system.routes';
import { auditRoutes } from './modules/audit/audit.routes';
import { tracingRoutes } from './modules/tracing/tracing.routes';
import { searchRoutes } from './modules/search/search.routes';
import { isfRoutes } from './modules/isf/isf.routes';
import { queryRoutes } from './modules/queries/queries.routes';
import { verificationRoutes } from './modules/verification/verification.routes';
import { safetyRoutes } from './modules/safety/safety.routes';
import { signalRoutes } from './modules/signal/signal.routes';
import { edcRoutes } from './modules/edc/edc.routes';
import { reportRoutes } from './modules/reports/reports.routes';
import { uploadRoutes } from './modules/uploads/uploads.routes';
import { orgRoutes } from './modules/orgs/orgs.routes';
import { roleRoutes } from './modules/roles/roles.routes';
import { teamRoutes } from './modules/team/team.routes';
import { designRoutes } from './modules/design/design.routes';
import { subjectRoutes } from './modules/subjects/subjects.routes';
import { subjectExcelRoutes } from './modules/subjects/subjects-excel.routes';
import { ecrfRoutes } from './modules/ecrf/ecrf.routes';
import { centerApplyRoutes } from './modules/center-apply/center-apply.routes';
import { selfTestRoutes } from './modules/jobs/self-test.job';
import { userRoutes } from './modules/users/users.routes';
import { hl7Routes } from './modules/hl7/hl7.routes';
import { sourceRoutes } from './modules/sources/sources.routes';
import { prefillRoutes } from './modules/prefill/prefill.routes';
import { documentRoutes } from './modules/documents/documents.routes';
import { ocrAssociationRoutes } from './modules/documents/ocr-association.routes';
import { deidConfigRoutes } from './modules/deid-config/deid-config.routes';
import { dictionaryRoutes } from './modules/dictionaries/dictionaries.routes';
import { exportRoutes } from './modules/exports/exports.routes';
import { profileRoutes } from './modules/profile/profile.routes';
import { smsRoutes } from './modules/sms/sms.routes';
import { feedbackRoutes } from './modules/feedback/feedback.routes';
import { ddcRoutes } from './modules/ddc/ddc.routes';
import { passkeyRoutes } from './modules/passkeys/passkeys.routes';
import { realNameRoutes } from './modules/profile/real-name.routes';
import { econsentRoutes } from './modules/econsent/econsent.routes';

export function allRoutes(deps: AppDeps): RouteSpec[] {
  return [
    ...systemRoutes(deps),
    ...authRoutes(deps),
    ...progressRoutes(deps),
    ...messageRoutes(deps),
    ...projectRoutes(deps),
    ...siteRoutes(deps),
    ...orgRoutes(deps),
    ...roleRoutes(deps),
    ...teamRoutes(deps),
    ...designRoutes(deps),
    ...centerApplyRoutes(deps),
    ...subjectRoutes(deps),
    ...subjectExcelRoutes(deps),
    ...ecrfRoutes(deps),
    ...auditRoutes(deps),
    ...tracingRoutes(deps),
    ...searchRoutes(deps),
    ...isfRoutes(deps),
    ...queryRoutes(deps),
    ...verificationRoutes(deps),
    ...safetyRoutes(deps),
    ...signalRoutes(deps),
    ...edcRoutes(deps),
    ...reportRoutes(deps),
    ...uploadRoutes(deps),
    ...selfTestRoutes(deps),
    ...userRoutes(deps),
    ...hl7Routes(deps),
    ...sourceRoutes(deps),
    ...prefillRoutes(deps),
    ...documentRoutes(deps),
    ...ocrAssociationRoutes(deps),
    ...deidConfigRoutes(deps),
    ...dictionaryRoutes(deps),
    ...exportRoutes(deps),
    ...profileRoutes(deps),
    ...smsRoutes(deps),
    ...feedbackRoutes(deps),
    ...ddcRoutes(deps),
    ...passkeyRoutes(deps),
    ...realNameRoutes(deps),
    ...econsentRoutes(deps),
  ];
}
