import { lazy } from 'react';

/** The change-password dialog of the user menu; loads when first opened. */
export const ModifyPasswordDialog = lazy(() => import('./modify-password-dialog'));
