import { lazy } from 'react';

export { useSearchShortcut } from './use-search-shortcut';
/** The search palette loads when first opened. */
export const SearchPalette = lazy(() => import('./search-palette'));
