/** Shared forms (issue 15 item 6): what other features use — the eCRF's share action and pending-review marks. */
export { ShareFormButton } from './components/share-form-button';
export { PendingReviewBar, PendingReviewTag } from './components/pending-review';
export { ddcKey } from './api/ddc-api';
