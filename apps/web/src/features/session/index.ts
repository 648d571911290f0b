/**
 * The session (part of the app shell): who is logged in, their permissions, language, project and the auth
 * API. Features use it only through this file; it imports no feature.
 */
export { sessionStore, useSession, type CurrentProject, type SessionState } from './session-store';
export { userInfoKey, useUserInfo, syncSessionFromUserInfo, useAccess } from './use-user-info';
export { usePms } from './use-pms';
export { UNMOUNT_EMBEDDED_EVENT, markSessionExpired, logout, applyGuardActions } from './session-actions';
export { PRODUCT_HEADER, sessionHeaders } from './session-headers';
export { useSessionTimers } from './use-session-timers';
export { LanguageToggle } from './language-toggle';
export { authApi, login, type EnvOption, type VersionInfo } from './api/auth-api';
export { watchProjectVisits } from './project-visits';
export {
  ceremonyProblem,
  FaceCeremonyError,
  loginWithPasskey,
  webauthnSupported,
  type FaceCeremonyProblem,
} from './face-login';
