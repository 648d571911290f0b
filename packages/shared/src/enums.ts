/** Enumerations from spec §1, §3 and §4. */

export const ENVS = ['DEV', 'UAT', 'PRO'] as const;
export type Env = (typeof ENVS)[number];
export const DEFAULT_ENV: Env = 'PRO';

/** Login types (spec §1). */
export const LOGIN_TYPE = { centre: 1, monitor: 2, site: 3, ae: 4 } as const;
export type LoginType = (typeof LOGIN_TYPE)[keyof typeof LOGIN_TYPE];
export const LOGIN_TYPES: readonly LoginType[] = [1, 2, 3, 4];

/** The three login variants (sites) and which login types each accepts. */
export const LOGIN_VARIANTS = {
  /** combined centre/monitor site (product iCRC / iCRA) */
  main: { loginTypes: [1, 2] as LoginType[], path: '/login' },
  /** the second login site, for hospital site users */
  site: { loginTypes: [3] as LoginType[], path: '/site/login' },
  /** the adverse-event site */
  ae: { loginTypes: [4] as LoginType[], path: '/ae/login' },
} as const;
export type LoginVariant = keyof typeof LOGIN_VARIANTS;

export const PROJECT_STATUS = { draft: 0, active: 1, paused: 2, closed: 3 } as const;
export type ProjectStatus = (typeof PROJECT_STATUS)[keyof typeof PROJECT_STATUS];

export const PROJECT_SCENE = { remoteMonitoring: 1, e2e: 2 } as const;

/** Subject status (spec §4). */
export const SUBJECT_STATUS = {
  deleted: 0,
  screening: 1,
  screeningFailed: 2,
  enrolled: 3,
  droppedOut: 4,
  completed: 5,
  longTermFollowUp: 6,
  informedConsent: 7,
  quit: 8,
} as const;

/** Source file status (spec §4). */
export const SOURCE_FILE_STATUS = {
  default: -99,
  waitingImport: -3,
  submitFailed: -2,
  auditFailed: -1,
  autoDeidentifying: 0,
  waitingSubmit: 1,
  waitingAudit: 2,
  auditPassed: 3,
} as const;

/**
 * Entry mode of an eCRF value (spec §4), and participant 7: filled by the participant through a shared link
 * (issue 15 item 6; the value's source is the link, 'share:<id>'). Never accepted from the entry screen's save.
 */
export const ENTRY_MODE = {
  stash: 0,
  manual: 2,
  direct: 3,
  kbms: 4,
  gather: 5,
  inject: 6,
  participant: 7,
} as const;

export const EDC_KINDS = [1, 3] as const;

/** Progress items (spec §3, §4). */
export const PROGRESS_TYPE = { sourceUpload: 1, extraction: 2, edcSync: 3 } as const;
export type ProgressType = (typeof PROGRESS_TYPE)[keyof typeof PROGRESS_TYPE];
export const PROGRESS_STATUS = { processing: 1, success: 2, error: 3 } as const;
export type ProgressStatus = (typeof PROGRESS_STATUS)[keyof typeof PROGRESS_STATUS];

export type ProgressGroupState = 'processing' | 'allSuccess' | 'partial' | 'allError';

/**
 * State of a group of progress items (spec §4): processing while any item runs, otherwise
 * all success, all error, or partial. Returns null for an empty group, which is not shown.
 */
export function progressGroupState(items: readonly { status: number }[]): ProgressGroupState | null {
  if (items.length === 0) return null;
  if (items.some((i) => i.status === PROGRESS_STATUS.processing)) return 'processing';
  const errors = items.filter((i) => i.status === PROGRESS_STATUS.error).length;
  if (errors === 0) return 'allSuccess';
  if (errors === items.length) return 'allError';
  return 'partial';
}

/** Subject identifier types (spec §3). */
export const IDENTIFIER_TYPES = ['medicalRecordId', 'inpatientId', 'outpatientId', 'idCard'] as const;

/** Source document types (spec §3). */
export const SOURCE_DOC_TYPES = [
  'courseRecord',
  'examination',
  'test',
  'doctorAdvice',
  'pathology',
  'surgery',
  'vitalSigns',
  'diagnosis',
] as const;

export const RISK_LEVELS = ['high', 'middle', 'low'] as const;
