/** Login product of this build (spec §2: the All route's project reset is dropped for 'evisit'). */
export const LOGIN_PRODUCT: string = import.meta.env.VITE_LOGIN_PRODUCT ?? 'esource';
export const APP_VERSION: string = __APP_VERSION__;
export const BUILD_TIME: string = __BUILD_TIME__;
