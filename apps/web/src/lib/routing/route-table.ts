import type { AppRoute } from './route-types';

/**
 * THE route table (spec §2): every route of the product, inside the layout and standalone, as metadata only
 * (paths, permissions, menu entries, login variants). It imports no page, so that access checks, the menu and
 * the guard (lib/routing) may use it; which page a route opens is bound in routes/route-pages.ts, which only
 * the router imports. Routes that later issues build are marked `placeholder` and open the placeholder page,
 * which says honestly what will be there.
 */
const P = (
  r: Omit<AppRoute, 'shell' | 'sideBar' | 'module' | 'inProject'> & Partial<AppRoute>,
): AppRoute => ({
  shell: true,
  sideBar: true,
  module: 1,
  inProject: true,
  ...r,
});

export const ROUTES: readonly AppRoute[] = [
  // ---------- standalone ----------
  {
    id: 'login',
    path: '/login',
    shell: false,
    sideBar: false,
    static: true,
    login: 'main',
    module: 0,
  },
  {
    id: 'siteLogin',
    path: '/site/login',
    shell: false,
    sideBar: false,
    static: true,
    login: 'site',
    module: 0,
  },
  {
    id: 'aeLogin',
    path: '/ae/login',
    shell: false,
    sideBar: false,
    static: true,
    login: 'ae',
    module: 0,
  },
  { id: 'privacy', path: '/privacy', shell: false, sideBar: false, static: true, module: 0 },
  {
    id: 'sitePrivacy',
    path: '/site/privacy',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  {
    id: 'aePrivacy',
    path: '/ae/privacy',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  {
    id: 'agreement',
    path: '/agreement',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  {
    id: 'person',
    path: '/person',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  {
    // an initial password (issued by an administrator) is changed here before anything else
    id: 'changePassword',
    path: '/change-password',
    shell: false,
    sideBar: false,
    passwordChange: true,
    module: 0,
  },
  {
    id: 'notFound',
    path: '/404',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  // shared forms (issue 15 item 6): the links of the project, created by who may enter the forms' data
  {
    id: 'ddcShare',
    path: '/DDC/share',
    shell: false,
    sideBar: false,
    module: 1,
    inProject: true,
    anyOf: ['crf:result:save'],
  },
  // the participant's form: no account (the code is the capability)
  {
    id: 'sharedForm',
    path: '/s/:code',
    shell: false,
    sideBar: false,
    static: true,
    module: 0,
  },
  // with ?versionId the form designer; without, what shared forms show (docs/decisions.md "Shared forms")
  {
    id: 'microCrfConfig',
    path: '/project/microCrfConfig',
    shell: false,
    sideBar: false,
    module: 1,
    inProject: true,
    anyOf: ['crf:form:query'],
  },
  // which forms may be shared and for how long
  {
    id: 'microDCConfig',
    path: '/project/microDCConfig',
    shell: false,
    sideBar: false,
    module: 1,
    inProject: true,
    anyOf: ['crf:form:query'],
  },

  // ---------- layout, no project ----------
  { id: 'root', path: '/', shell: true, sideBar: false, module: 1, redirectTo: '/overview', hidden: true },
  {
    id: 'overview',
    path: '/overview',
    name: 'All',
    shell: true,
    sideBar: false,
    module: 1,
  },
  {
    id: 'userInfo',
    path: '/user-info',
    shell: true,
    sideBar: false,
    hidden: true,
    module: 1,
  },
  {
    // the message centre: reached from the message badge and the user menu
    id: 'messages',
    path: '/messages',
    shell: true,
    sideBar: false,
    hidden: true,
    module: 1,
  },
  {
    id: 'edcLink',
    path: '/edc-link',
    shell: true,
    sideBar: false,
    hidden: true,
    module: 1,
    loginTypes: [1],
  },
  {
    id: 'ocrSynonyms',
    path: '/ocrConfig/same',
    shell: true,
    sideBar: false,
    module: 1,
    anyOf: ['source:config:query'],
  },
  {
    id: 'textSynonyms',
    path: '/textConfig/same',
    shell: true,
    sideBar: false,
    module: 1,
    anyOf: ['source:config:query'],
  },

  // ---------- module 2: user management ----------
  ...(
    [
      ['userSys', '/system/userSys', 'user', 'system:user:query'],
      ['roleSys', '/system/roleSys', 'role', 'system:role:query'],
      ['permissionGroup', '/system/permissionGroup', 'group', 'system:permission-group:query'],
      ['orgDict', '/system/org', 'org', 'system:org:query'],
      ['deptDict', '/system/dept', 'dept', 'system:dept:query'],
      ['dictionaries', '/system/dictionary', 'clinical', 'system:dictionary:query'],
      ['feedback', '/system/feedback', 'feedback', 'system:feedback:query'],
    ] as const
  ).map(([id, path, icon, pm]): AppRoute => ({
    id,
    path,
    // roles, permission groups, organisations and departments are tabs of the user-management page, which
    // opens on the tab of the menu entry that led there; dictionaries and feedback are pages of their own
    shell: true,
    sideBar: true,
    module: 2,
    // spec §2: module 2 opens with either permission; the page shows the tabs the user may see
    anyOf: id === 'userSys' ? ['system:user:query', 'system:role:query'] : [pm],
    menu: { icon },
  })),

  // HL7 v2 messages no project could be found for (unknown sender): system administrators replay them (issue 11)
  {
    id: 'systemHl7Messages',
    path: '/system/hl7Messages',
    shell: true,
    sideBar: true,
    module: 2,
    anyOf: ['system:config:query'],
    menu: { icon: 'message' },
  },

  // the development SMS provider's messages (SMS_PROVIDER=outbox), e.g. phone-change codes (issue 15)
  {
    id: 'smsOutbox',
    path: '/system/smsOutbox',
    shell: true,
    sideBar: true,
    module: 2,
    anyOf: ['system:config:query'],
    menu: { icon: 'message' },
  },

  // the administrator's contact and the suite's host addresses (issue 15 item 3)
  {
    id: 'systemSettings',
    path: '/system/settings',
    shell: true,
    sideBar: true,
    module: 2,
    anyOf: ['system:config:query'],
    menu: { icon: 'config' },
  },

  // ---------- module 6: system log / audit trail ----------
  ...(
    [
      ['auditTrack', '/system/auditTrack', 'audit', 'syslog:audit-track:query'],
      ['superviseLog', '/system/superviseLog', 'log', 'syslog:audit-supervise-log:query'],
      ['loginLog', '/system/loginLog', 'log', 'syslog:login-log:query'],
      ['authLog', '/system/authLog', 'log', 'syslog:auth-log:query'],
    ] as const
  ).map(([id, path, icon, pm]): AppRoute => ({
    id,
    path,
    // the supervision log and the login log are tabs of the audit page (it opens on the entry's tab)

    shell: true,
    sideBar: true,
    module: 6,
    // spec §2: module 6 opens with audit access or the supervise-log query permission
    anyOf: id === 'auditTrack' ? ['syslog:audit-track:query', 'syslog:audit-supervise-log:query'] : [pm],
    menu: { icon },
  })),

  // ---------- module 9: centre application (PRO only; the module filter hides the tab elsewhere) ----------
  {
    id: 'centerApplyAlias',
    path: '/centerApply',
    shell: true,
    sideBar: false,
    module: 9,
    redirectTo: '/system/centerApply',
    hidden: true,
  },
  {
    id: 'centerApply',
    path: '/system/centerApply',
    shell: true,
    sideBar: true,
    module: 9,
    anyOf: ['apply:pass:query', 'apply:unpass:query', 'apply:ing:query'],
    menu: { icon: 'apply' },
  },

  // ---------- module 1 inside a project ----------
  {
    id: 'projectEntry',
    path: '/project',
    shell: true,
    sideBar: true,
    module: 1,
    inProject: true,
    hidden: true,
  },
  P({
    id: 'projectManage',
    path: '/project/ProjectManage',
    anyOf: ['project:info:query'],
    menu: { icon: 'project' },
  }),

  // subject lists: the build flag and the login type choose which one the user has
  P({
    id: 'centerPtsList',
    path: '/project/centerPtsList',
    anyOf: ['patient:page:query'],
    loginTypes: [1],
    lists: 'centre',
    menu: { icon: 'subjects', group: 'subjects' },
  }),
  P({
    id: 'craPtsList',
    path: '/project/craPtsList',
    anyOf: ['patient:page:query'],
    loginTypes: [2],
    lists: 'centre',
    menu: { icon: 'subjects', group: 'subjects' },
  }),
  P({
    id: 'sickLoop',
    path: '/project/sickLoop',
    anyOf: ['patient:page:query'],
    lists: 'site',
    menu: { icon: 'subjects', group: 'subjects' },
  }),
  P({
    id: 'centerList',
    path: '/project/centerList',
    anyOf: ['research:page:query'],
    menu: { icon: 'sites', group: 'subjects' },
  }),
  P({
    id: 'failedPtsList',
    path: '/project/failedPtsList',
    anyOf: ['patient:page:restore'],
    menu: { icon: 'recycle', group: 'subjects' },
  }),
  P({
    id: 'sickFile',
    path: '/project/SickFile',
    anyOf: ['padoc:all-doc:query', 'padoc:certified:query', 'padoc:pre-crf-report:query'],
    parent: 'subjectList',
    hidden: true,
  }),
  P({
    id: 'dashboardSickFile',
    path: '/project/dashboard/SickFile',
    anyOf: ['padoc:all-doc:query', 'padoc:certified:query', 'padoc:pre-crf-report:query'],
    parent: 'subjectList',
    hidden: true,
  }),
  P({
    id: 'ptsFolder',
    path: '/project/ptsFolder',
    anyOf: ['patient:page:query'],
    parent: 'subjectList',
    hidden: true,
  }),
  P({
    id: 'ptsDetail',
    path: '/project/ptsDetail',
    anyOf: ['patient:page:query'],
    parent: 'subjectList',
    hidden: true,
  }),
  P({
    id: 'sourceData',
    path: '/project/sourceData',
    anyOf: ['source:extract:query'],
    parent: 'subjectList',
    hidden: true,
  }),
  P({
    id: 'gatherPtsDataDetail',
    path: '/project/SickFile/gatherPtsData/detail',
    anyOf: ['source:extract:query'],
    parent: 'sickFile',
    hidden: true,
  }),
  P({
    id: 'gatherDataDetail',
    path: '/project/gatherData/detail',
    anyOf: ['source:extract:query'],
    parent: 'subjectList',
    hidden: true,
  }),

  P({
    id: 'visitTimeline',
    path: '/project/visitTimeline',
    anyOf: ['project:visit:query'],
    menu: { icon: 'visits', group: 'visits' },
  }),
  P({
    id: 'visitTaskList',
    path: '/project/visitTimeline/taskList',
    anyOf: ['project:visit:query'],
    parent: 'visitTimeline',
    hidden: true,
  }),
  P({
    id: 'calendar',
    path: '/project/calendar',
    anyOf: ['research:schedule:query'],
    menu: { icon: 'calendar', group: 'visits' },
  }),

  P({
    id: 'sourceFile',
    path: '/project/sourceFile',
    anyOf: ['source:file:query'],
    menu: { icon: 'source', group: 'source' },
  }),
  // hospital patients an extraction could not match to a subject (issue 11)
  P({
    id: 'sourceMatching',
    path: '/project/sourceMatching',
    anyOf: ['source:extract:query'],
    menu: { icon: 'source', group: 'source' },
  }),
  P({
    id: 'uploadTuomin',
    path: '/project/uploadTuomin',
    anyOf: ['source:file:query'],
    menu: { icon: 'deid', group: 'source' },
  }),
  P({
    id: 'pdfTuomin',
    path: '/project/pdfTuomin',
    anyOf: ['source:file:query'],
    parent: 'uploadTuomin',
    hidden: true,
  }),
  P({
    id: 'deidMessage',
    path: '/project/message',
    anyOf: ['message:pending:query', 'message:processed:query', 'message:invalid:query'],
    menu: { icon: 'message', group: 'source' },
  }),
  P({
    id: 'sickRecordMsg',
    path: '/project/message/sickRecordMsg',
    anyOf: ['message:pending:query', 'message:processed:query', 'message:invalid:query'],
    parent: 'deidMessage',
    hidden: true,
  }),
  P({
    id: 'messageUploadTuomin',
    path: '/project/message/uploadTuomin',
    anyOf: ['message:pending:query', 'message:processed:query', 'message:invalid:query'],
    parent: 'deidMessage',
    hidden: true,
  }),
  P({
    id: 'researchFile',
    path: '/project/researchFile',
    anyOf: ['isf:file:query'],
    menu: { icon: 'isf', group: 'source' },
  }),
  P({
    id: 'isfImageTuomin',
    path: '/project/researchFile/imageTuomin',
    anyOf: ['isf:file:query'],
    parent: 'researchFile',
    hidden: true,
  }),
  P({
    id: 'isfPdfTuomin',
    path: '/project/researchFile/pdfTuomin',
    anyOf: ['isf:file:query'],
    parent: 'researchFile',
    hidden: true,
  }),

  P({
    id: 'verification',
    path: '/project/verification',
    anyOf: ['verification:sdv:query', 'verification:sdr:query'],
    menu: { icon: 'review', group: 'review' },
  }),
  P({
    id: 'doubtList',
    path: '/project/doubtList',
    anyOf: ['doubt:querying:query', 'doubt:replied:query', 'doubt:closed:query'],
    menu: { icon: 'query', group: 'review' },
  }),

  P({
    id: 'clinical',
    path: '/project/clinical',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'clinicalToJudge',
    path: '/project/clinical/2',
    anyOf: ['clinical:judge:query'],
    parent: 'clinical',
    hidden: true,
  }),
  P({
    id: 'clinicalJudged',
    path: '/project/clinical/3',
    anyOf: ['clinical:judge:query'],
    parent: 'clinical',
    hidden: true,
  }),
  P({
    id: 'ae',
    path: '/project/ae/6',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'cm',
    path: '/project/cm/9',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'pr',
    path: '/project/pr/13',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'mh',
    path: '/project/mh/14',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'hiss',
    path: '/project/hiss/15',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'medication',
    path: '/project/medication',
    anyOf: ['clinical:judge:query'],
    menu: { icon: 'clinical', group: 'clinical' },
  }),
  P({
    id: 'medicationDetail',
    path: '/project/medicationDetail',
    anyOf: ['clinical:judge:query'],
    parent: 'medication',
    hidden: true,
  }),
  P({
    id: 'signalReport',
    path: '/project/signalReport',
    anyOf: ['clinical:signal:query'],
    menu: { icon: 'report', group: 'clinical' },
  }),

  P({
    id: 'reports',
    path: '/project/reports',
    anyOf: [
      'report:data-consistency:query',
      'report:extract:query',
      'report:sync-change:query',
      'report:data-change:query',
      'report:crf:query',
      'report:crf-missing:query',
      // not report:traceability:query: the traceability report is its own page and menu entry (a site coordinator
      // holds only that one, and gets no reports page that would merely link to it)
    ],
    menu: { icon: 'report', group: 'reports' },
  }),
  P({
    id: 'traceability',
    path: '/project/icrc-source',
    anyOf: ['report:traceability:query'],
    menu: { icon: 'report', group: 'reports' },
  }),
  // issue 14: the caller's generated files (casebook PDFs; study exports later)
  P({
    id: 'exportFiles',
    path: '/project/exportFiles',
    anyOf: ['crf:casebook:export', 'crf:result:export'],
    menu: { icon: 'report', group: 'reports' },
  }),
  P({
    id: 'dataReport',
    path: '/project/dataReport',
    anyOf: ['prolog:audit-action:query', 'prolog:upload-edc-log:query'],
    menu: { icon: 'audit', group: 'reports' },
  }),
  P({
    id: 'auditLogs',
    path: '/project/auditLogs',
    anyOf: ['syslog:audit-supervise-log:query'],
    loginTypes: [2],
    menu: { icon: 'audit', group: 'reports' },
  }),
  P({
    id: 'edcReportDetail',
    path: '/project/edcReportDetail',
    anyOf: ['edc:sync:query'],
    menu: { icon: 'edc', group: 'reports' },
  }),

  P({
    id: 'userManage',
    path: '/project/user-manage',
    anyOf: ['team:member:query'],
    menu: { icon: 'team', group: 'settings' },
  }),
  // visit plan and design versions (issue 4 §5); the form designer itself is /project/microCrfConfig
  P({
    id: 'design',
    path: '/project/design',
    anyOf: ['crf:form:query', 'project:version:query'],
    menu: { icon: 'visits', group: 'settings' },
  }),
  // hospital connections per site and environment (issue 11)
  P({
    id: 'sourceConnections',
    path: '/project/sourceConnections',
    anyOf: ['source:config:query'],
    menu: { icon: 'config', group: 'settings' },
  }),
  // HL7 v2 messages routed to the project, with their dead letters and replay (issue 11)
  P({
    id: 'hl7Messages',
    path: '/project/hl7Messages',
    anyOf: ['source:config:query'],
    menu: { icon: 'message', group: 'settings' },
  }),
  P({
    id: 'ocrProConfig',
    path: '/project/ocrProConfig',
    anyOf: ['source:config:query'],
    menu: { icon: 'deid', group: 'settings' },
  }),
  // issue 11: the rule that fills each eCRF item from source records, and the project's pre-fill schedule (a tab)
  P({
    id: 'dataMapping',
    path: '/project/dataMapping',
    anyOf: ['source:config:query', 'crf:prefill:query'],
    loginTypes: [1, 2],
    menu: { icon: 'config', group: 'settings' },
  }),
  P({
    id: 'projectOcrSynonyms',
    path: '/project/ocrConfig/same',
    anyOf: ['source:config:query'],
    menu: { icon: 'config', group: 'settings' },
  }),
  P({
    id: 'projectTextSynonyms',
    path: '/project/textConfig/same',
    anyOf: ['source:config:query'],
    menu: { icon: 'config', group: 'settings' },
  }),
];

const BY_ID = new Map(ROUTES.map((r) => [r.id, r]));

export function routeById(id: string): AppRoute | undefined {
  return BY_ID.get(id);
}
