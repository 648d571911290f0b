import { lazy } from 'react';

/** The Feedback dialog of the user menu (send, and "My feedback"); loads when first opened. */
export const FeedbackDialog = lazy(() => import('./components/feedback-dialog'));
