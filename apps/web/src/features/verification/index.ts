/** SDV and SDR (issue 13 item 1): what other features use. */
export { ItemVerification } from './components/item-verification';
export { VerificationBar } from './components/verification-bar';
export { VerifyVisitButton } from './components/verify-visit-button';
export { verificationKey } from './api/verification-api';
export { SubjectRiskDialog, SubjectRiskTag } from './components/subject-risk';
