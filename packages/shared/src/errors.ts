/**
 * Typed error codes shared by server and web. The server answers `{ code, status: "0", message, errorCode,
 * requestId, detail? }`; `code` is the HTTP status, `errorCode` one of these; `message` is already translated
 * into the request's language from i18n/<lang>.json `errors.<errorCode>`.
 */
export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_MEMBER: 403,
  SITE_FORBIDDEN: 403,
  ENV_FORBIDDEN: 403,
  LOGIN_WINDOW_CLOSED: 403,
  LOGIN_TYPE_FORBIDDEN: 403,
  ACCOUNT_DISABLED: 403,
  VALIDATION: 400,
  PROJECT_REQUIRED: 400,
  SITE_REQUIRED: 400,
  BAD_CREDENTIALS: 400,
  PASSWORD_REUSED: 400,
  /** a new password digest that is one of a common or breached password */
  PASSWORD_TOO_COMMON: 400,
  /** a new password digest that is the account name or a simple variant of it */
  PASSWORD_LIKE_ACCOUNT: 400,
  /** re-authentication (signature, password change) with a wrong current password; counts toward the lockout */
  WRONG_PASSWORD: 400,
  /** the initial (administrator-issued) password must be changed before anything else */
  PASSWORD_CHANGE_REQUIRED: 403,
  /** separation of duties: the applicant cannot decide their own application */
  OWN_APPLICATION: 403,
  BAD_JSON: 400,
  ACCOUNT_LOCKED: 423,
  RATE_LIMITED: 429,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CONFLICT: 409,
  /** the database gave up one of two writers that crossed (deadlock or serialization failure); nothing was written */
  RETRY: 409,
  DUPLICATE: 409,
  IN_USE: 409,
  PROJECT_HAS_SUBJECT_DATA: 409,
  DM_ONLY_IN_DEV: 400,
  INVALID_REFERENCE: 400,
  VERSION_LOCKED: 409,
  IMPORT_FORMAT: 400,
  SUBJECT_TRANSITION: 409,
  REASON_REQUIRED: 400,
  SUBJECT_DELETED: 409,
  FORM_CERTIFIED: 409,
  STALE_WRITE_ITEMS: 409,
  CERTIFY_NOT_COMPLETED: 409,
  STALE_WRITE: 409,
  /** syncUserToHospital: no hospital connection of the project accepts users (issue 15 item 8) */
  HOSPITAL_SYNC_UNSUPPORTED: 409,
  KBMS_NOT_CONNECTED: 409,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  /** a subject already has an extraction queued or running (issue 11) */
  SOURCE_TASK_LIVE: 409,
  SOURCE_NO_CONNECTION: 400,
  SOURCE_CONNECTION_KIND: 400,
  SOURCE_MATCH_SITE: 400,
  SOURCE_TASK_STATE: 409,
  /** the hospital system failed (timeout, HTTP error with its OperationOutcome, malformed JSON …) */
  SOURCE_FETCH: 502,
  SOURCE_FILE_FORMAT: 400,
  /** an uploaded source document refused by its content (type, empty, truncated, pixel bomb, encrypted, pages) */
  DOCUMENT_FILE_INVALID: 400,
  /** an image over 2 MB or a PDF over 50 MB (spec §9) */
  DOCUMENT_FILE_TOO_LARGE: 400,
  /** more than 20 images in one upload (spec §9) */
  DOCUMENT_TOO_MANY_IMAGES: 400,
  /** more than 200 files for one subject (spec §8, §9) */
  DOCUMENT_TOO_MANY_FILES: 400,
  DOCUMENT_NO_FILE: 400,
  /** a file of the subject is still in automatic de-identification (spec §8) */
  DOCUMENT_UPLOAD_BUSY: 409,
  /** a status change the transition table does not allow */
  DOCUMENT_TRANSITION: 409,
  /** the de-identified copy does not exist (yet) */
  DOCUMENT_NOT_READY: 409,
  /** manual de-identification of a file whose status no longer allows it (only waiting submit or audit failed) */
  DOCUMENT_NOT_EDITABLE: 409,
  /** text masking refuses overlapping selections (spec §5) */
  DOCUMENT_MASK_OVERLAP: 400,
  /** a PDF synthesis of the subject is already running (spec §8) */
  PDF_SYNTHESIS_BUSY: 409,
  /** no de-identified page to combine yet */
  PDF_SYNTHESIS_EMPTY: 409,
  /** a project's desensitization keywords would exceed DEID_KEYWORDS_MAX (add or import; nothing is written) */
  DEID_KEYWORD_LIMIT: 409,
  /** an ISF document kind of that name (any letter case) exists in the project and environment */
  ISF_KIND_NAME_TAKEN: 409,
  /** an ISF version is one file */
  ISF_ONE_FILE: 400,
  /** the kind is not kept at that site (its sites list leaves the site out) */
  ISF_KIND_NOT_FOR_SITE: 400,
  /** a version of the kind at the site is still in automatic de-identification */
  ISF_UPLOAD_BUSY: 409,
  /** a query on a form that has no data yet (raise it on the visit instead) */
  QUERY_NO_DATA: 409,
  /** a query step its status does not allow (reply to a closed query …) */
  QUERY_TRANSITION: 409,
  /** SDV/SDR of a form that is not completed yet (a draft is work in progress) */
  VERIFY_NOT_COMPLETED: 409,
  /** a verification mark already removed or lost */
  VERIFY_MARK_ENDED: 409,
  /** a candidate judged by someone else since the reviewer loaded it (names who and when) */
  JUDGE_STALE: 409,
  /** changing a judgement needs the reason */
  JUDGE_REASON_REQUIRED: 400,
  /** the log form instance a judgement wrote is certified or gone: the change cannot be written */
  JUDGE_LOG_LOCKED: 409,
  /** a dictionary version of that label (any letter case) exists for the kind (issue 13 item 5) */
  DICTIONARY_VERSION_TAKEN: 409,
  /** a file of that kind and scope (a subject's casebook) is already being generated for the caller (issue 14) */
  EXPORT_BUSY: 409,
  /** a generated file that is not finished (or failed) cannot be downloaded */
  EXPORT_NOT_READY: 409,
  /** a casebook of a subject without a design version has no forms to print */
  CASEBOOK_NO_DESIGN: 409,
  /** the project environment has no EDC configured (issue 14) */
  EDC_NOT_CONFIGURED: 409,
  /** the EDC configuration is switched off: no sync starts */
  EDC_DISABLED: 409,
  /** the EDC mapping of a design version in the sync's scope has problems (listed in detail) */
  EDC_MAPPING_INVALID: 409,
  /** a sync of the project environment is already pending or running */
  EDC_SYNC_RUNNING: 409,
  /** the EDC could not be reached or refused (its reason) */
  EDC_TARGET: 502,
  /** the EDC's item list has not been read yet */
  EDC_NO_ITEM_LIST: 409,
  /** Associate EDC: the EDC refused the user's own credentials (its reason); nothing was saved */
  EDC_LINK_REFUSED: 400,
  /** the OCR engine's queue is full: try again in a moment */
  OCR_BUSY: 503,
  /** feedback (issue 15 item 5): more than FEEDBACK_LIMITS.perHour sent by the user in the last hour */
  FEEDBACK_FLOOD: 429,
  /** a feedback screenshot that is not a PNG/JPG image, or is damaged (the problem named) */
  FEEDBACK_SCREENSHOT_INVALID: 400,
  /** a feedback screenshot over 2 MB */
  FEEDBACK_SCREENSHOT_TOO_LARGE: 400,
  /** someone else answered, closed or reopened the feedback since it was opened (names who and when) */
  FEEDBACK_STALE: 409,
  /** closed feedback is reopened before it is answered or closed again */
  FEEDBACK_CLOSED: 409,
  /** only closed feedback can be reopened */
  FEEDBACK_NOT_CLOSED: 409,
  /** personal settings (issue 15): an avatar that is not a PNG/JPG image, or is damaged (the problem named) */
  AVATAR_INVALID: 400,
  /** an avatar over 2 MB (spec §9) */
  AVATAR_TOO_LARGE: 400,
  /** phone change: the new number is the caller's current one */
  PHONE_SAME: 400,
  /** phone change: the number is bound to another account */
  PHONE_TAKEN: 409,
  /** a verification code was asked for too soon after the last one (per number and per account) */
  SMS_CODE_TOO_SOON: 429,
  /** the day's verification codes for the number or the account are used up */
  SMS_CODE_DAILY_LIMIT: 429,
  /** no code was sent for this number (or a newer request replaced it) */
  SMS_CODE_NONE: 400,
  /** a wrong code; counts toward the code's attempts */
  SMS_CODE_WRONG: 400,
  /** the code is older than its lifetime */
  SMS_CODE_EXPIRED: 400,
  /** the code was used already */
  SMS_CODE_USED: 400,
  /** too many wrong entries: the code is spent */
  SMS_CODE_LOCKED: 400,
  /** the SMS gateway refused or could not be reached; no code is valid */
  SMS_SEND_FAILED: 502,
  /** face login (issue 15 item 2): the server has no relying party configured (WEBAUTHN_* / PUBLIC_URL) */
  PASSKEY_NOT_CONFIGURED: 503,
  /** the challenge is unknown, expired, used already, or another user's: start again */
  PASSKEY_CHALLENGE_INVALID: 400,
  /** the passkey presented is registered with no account (removed, or another site's) */
  PASSKEY_UNKNOWN: 400,
  /** the passkey belongs to another account than the one named (or its user handle does not match) */
  PASSKEY_USER_MISMATCH: 400,
  /** the authenticator's answer failed verification (origin, RP ID, user verification, signature; names which) */
  PASSKEY_VERIFY_FAILED: 400,
  /** the passkey's signature counter did not go up: a copied authenticator or a replayed answer */
  PASSKEY_COUNTER: 400,
  /** this passkey is registered already */
  PASSKEY_EXISTS: 409,
  /** the user holds FACE_LOGIN.maxPasskeys passkeys */
  PASSKEY_LIMIT: 409,
  /** real-name verification: the provider says the name and the ID number do not belong together */
  REAL_NAME_MISMATCH: 400,
  /** real-name verification: the ID number is verified on another account */
  REAL_NAME_ID_TAKEN: 409,
  /** real-name verification: REAL_NAME.perDay checks used in the last 24 hours */
  REAL_NAME_DAILY_LIMIT: 429,
  /** real-name verification: no provider configured, or the provider could not answer (its reason) */
  REAL_NAME_UNAVAILABLE: 503,
  /** the project's scene or configFiveFunction switches the function off (project-features.ts); names the function */
  PROJECT_FEATURE_OFF: 403,
  /** the project environment has no e-consent system configured (issue 15 item 7) */
  EC_NOT_CONFIGURED: 409,
  /** the e-consent configuration is switched off */
  EC_DISABLED: 409,
  /** the e-consent system could not be reached or answered something unreadable (its reason) */
  EC_PROVIDER_UNAVAILABLE: 502,
  /** a participant id the e-consent system does not list for the caller's sites (another site's, project's, or none) */
  EC_PARTICIPANT_NOT_FOUND: 404,
  /** a participant already added as a subject (names the subject) */
  EC_ALREADY_ADDED: 409,
  /** a participant that cannot be added: not consented, withdrawn, or at a site the project does not have */
  EC_NOT_ADDABLE: 409,
  /** the development e-consent provider is refused in production */
  EC_DEV_PROVIDER_PRODUCTION: 400,
  /** shared forms (issue 15 item 6): no link has this code (or it is malformed) */
  SHARE_NOT_FOUND: 404,
  /** the link was used already: a link is submitted once */
  SHARE_USED: 410,
  /** the link's validity ended before it was used */
  SHARE_EXPIRED: 410,
  /** staff withdrew the link */
  SHARE_REVOKED: 410,
  /** the form behind the link was completed or certified at the site since the link was made */
  SHARE_FORM_CLOSED: 409,
  /** the project's data-collection settings (or the form: file items) do not allow sharing this form; names why */
  SHARE_NOT_ALLOWED: 409,
  /** a live link to the same form already exists (names it): revoke it first */
  SHARE_ACTIVE_EXISTS: 409,
  /** only an active link can be revoked or copied; names its state */
  SHARE_NOT_ACTIVE: 409,
  /** the form holds no participant answers waiting for review */
  SHARE_NO_PENDING_REVIEW: 409,
  /** the form holds a participant's answers not reviewed yet: accept or correct them first */
  FORM_PENDING_REVIEW: 409,
  INTERNAL: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(s: string): s is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_STATUS, s);
}
