import type { ComponentType } from 'react';
import type { AppRoute } from '../lib/routing/route-types';

export type PageModule = { default: ComponentType };
export type PageLoader = () => Promise<PageModule>;

/**
 * Which page each route of the table (lib/routing/route-table.ts) opens, loaded lazily. This is the only
 * place that imports pages, and only the router (app/router.tsx) imports it: pages and features use the
 * table and the access checks in lib/routing, so no page can close an import circle through here (lint:
 * import-x/no-restricted-paths and import-x/no-cycle).
 */
const placeholder: PageLoader = () => import('../pages/placeholder-page');
const login: PageLoader = () => import('../features/auth/pages/login-page');
const privacy: PageLoader = () => import('../features/legal/pages/privacy-page');
const userSys: PageLoader = () => import('../features/users/pages/user-sys-page');
const auditTrack: PageLoader = () => import('../features/audit/pages/audit-track-page');
const subjectList: PageLoader = () => import('../features/subjects/pages/subject-list-page');
const subjectDetail: PageLoader = () => import('../features/subjects/pages/subject-detail-page');
const synonyms: PageLoader = () => import('../features/mapping/pages/synonyms-page');
const deidReview: PageLoader = () => import('../features/documents/pages/deid-review-page');
const deidMessages: PageLoader = () => import('../features/documents/pages/deid-messages-page');

export const ROUTE_PAGES: Readonly<Record<string, PageLoader>> = {
  // standalone
  login,
  siteLogin: login,
  aeLogin: login,
  privacy,
  sitePrivacy: privacy,
  aePrivacy: privacy,
  agreement: () => import('../features/legal/pages/agreement-page'),
  person: () => import('../features/legal/pages/person-page'),
  changePassword: () => import('../features/password/pages/change-password-page'),
  notFound: () => import('../pages/not-found-page'),
  // the form designer with a design version, the shared forms' display settings without (issue 15 item 6)
  microCrfConfig: () => import('./micro-crf-config'),
  microDCConfig: () => import('../features/ddc/pages/micro-dc-config-page'),
  ddcShare: () => import('../features/ddc/pages/ddc-share-page'),
  sharedForm: () => import('../features/ddc/pages/shared-form-page'),
  // layout, no project
  overview: () => import('../features/projects/pages/overview-page'),
  userInfo: () => import('../features/profile/pages/user-info-page'),
  // issue 14 item 3: Associate EDC (the user menu, login type 1)
  edcLink: () => import('../features/edc-link/pages/edc-link-page'),
  messages: () => import('../features/messages/pages/messages-page'),
  // module 2: roles, permission groups, organisations and departments are tabs of the user-management page,
  // which opens on the tab of the menu entry that led there
  userSys,
  roleSys: userSys,
  permissionGroup: userSys,
  orgDict: userSys,
  deptDict: userSys,
  // issue 13 item 5: drug, diagnosis, surgery and examination dictionaries
  dictionaries: () => import('../features/dictionaries/pages/dictionaries-page'),
  // issue 15 item 5: feedback users sent from the user menu
  feedback: () => import('../features/feedback/pages/feedback-page'),
  // module 6: the supervision log and the login log are tabs of the audit page (it opens on the entry's tab)
  auditTrack,
  superviseLog: auditTrack,
  loginLog: auditTrack,
  authLog: auditTrack,
  // module 9
  centerApply: () => import('../features/center-apply/pages/center-apply-page'),
  // module 1 inside a project
  projectEntry: () => import('../features/projects/pages/project-entry-page'),
  projectManage: () => import('../features/project-manage/pages/project-manage-page'),
  centerPtsList: subjectList,
  craPtsList: subjectList,
  sickLoop: subjectList,
  centerList: () => import('../features/sites/pages/sites-page'),
  failedPtsList: () => import('../features/subjects/pages/recycle-bin-page'),
  sickFile: subjectDetail,
  dashboardSickFile: subjectDetail,
  ptsDetail: subjectDetail,
  // issue 11: source data
  sourceData: () => import('../features/sources/pages/source-data-page'),
  gatherPtsDataDetail: () => import('../features/sources/pages/gather-pts-page'),
  gatherDataDetail: () => import('../features/sources/pages/gather-task-page'),
  sourceMatching: () => import('../features/sources/pages/matching-page'),
  sourceConnections: () => import('../features/sources/pages/connections-page'),
  hl7Messages: () => import('../features/hl7/pages/project-hl7-page'),
  systemHl7Messages: () => import('../features/hl7/pages/system-hl7-page'),
  smsOutbox: () => import('../features/sms-outbox/pages/sms-outbox-page'),
  systemSettings: () => import('../features/system-settings/pages/system-settings-page'),
  reports: () => import('../features/sources/pages/reports-page'),
  // issue 12: source documents, their de-identification review and messages
  sourceFile: () => import('../features/documents/pages/source-files-page'),
  ptsFolder: () => import('../features/documents/pages/subject-folder-page'),
  uploadTuomin: deidReview,
  pdfTuomin: deidReview,
  messageUploadTuomin: deidReview,
  // issue 12 item 8: the investigator site file; its versions are reviewed on the documents' screen
  researchFile: () => import('../features/isf/pages/isf-page'),
  isfImageTuomin: deidReview,
  isfPdfTuomin: deidReview,
  // issue 13: queries, SDV/SDR
  verification: () => import('../features/verification/pages/verification-page'),
  doubtList: () => import('../features/queries/pages/query-list-page'),
  // issue 13 item 6: the signal report (its chart library loads with this page only)
  signalReport: () => import('../features/signal/pages/signal-report-page'),
  // issue 13: safety review
  clinical: () => import('../features/safety/pages/clinical-page'),
  clinicalToJudge: () => import('../features/safety/pages/clinical-page'),
  clinicalJudged: () => import('../features/safety/pages/clinical-page'),
  ae: () => import('../features/safety/pages/category-page'),
  cm: () => import('../features/safety/pages/category-page'),
  pr: () => import('../features/safety/pages/category-page'),
  mh: () => import('../features/safety/pages/category-page'),
  hiss: () => import('../features/safety/pages/category-page'),
  medication: () => import('../features/safety/pages/medication-page'),
  medicationDetail: () => import('../features/safety/pages/medication-detail-page'),
  deidMessage: deidMessages,
  sickRecordMsg: deidMessages,
  visitTimeline: () => import('../features/calendar/pages/visit-timeline-page'),
  visitTaskList: () => import('../features/calendar/pages/task-list-page'),
  calendar: () => import('../features/calendar/pages/calendar-page'),
  auditLogs: () => import('../features/audit/pages/project-audit-logs-page'),
  userManage: () => import('../features/team/pages/team-page'),
  design: () => import('../features/design/pages/design-page'),
  // issue 11: data mapping (with the pre-fill schedule tab), synonyms, the traceability report
  dataMapping: () => import('../features/mapping/pages/data-mapping-page'),
  ocrSynonyms: synonyms,
  textSynonyms: synonyms,
  projectOcrSynonyms: synonyms,
  projectTextSynonyms: synonyms,
  traceability: () => import('../features/prefill/pages/traceability-page'),
  // issue 14: generated files (casebook PDFs)
  exportFiles: () => import('../features/exports/pages/export-files-page'),
  // issue 14: the EDC sync screens and the project audit trail with the EDC upload log
  edcReportDetail: () => import('../features/edc/pages/edc-report-detail-page'),
  dataReport: () => import('../features/edc/pages/data-report-page'),
  // issue 12: desensitization configuration (keywords, policy, try-out)
  ocrProConfig: () => import('../features/deid-config/pages/deid-config-page'),
};

/** The lazy page a route opens: none for a redirect, the placeholder page for a route not built yet. */
export function pageFor(route: AppRoute): PageLoader | undefined {
  if (route.redirectTo) return undefined;
  if (route.placeholder) return placeholder;
  return ROUTE_PAGES[route.id];
}
