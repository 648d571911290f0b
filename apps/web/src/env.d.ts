/// <reference types="vite/client" />

declare const __APP_VERSION__: string;
declare const __BUILD_TIME__: string;

interface ImportMetaEnv {
  /** Build flag (spec §2): 'true' = centre subject lists, 'false' = site lists; unset = by login type. */
  readonly VITE_CENTRE_LISTS?: string;
  /** Login product of this build: 'esource' (default) or 'evisit'. */
  readonly VITE_LOGIN_PRODUCT?: string;
}

interface Window {
  __POWERED_BY_QIANKUN__?: boolean;
  __INJECTED_PUBLIC_PATH_BY_QIANKUN__?: string;
}
