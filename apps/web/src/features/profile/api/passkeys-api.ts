import { queryOptions } from '@tanstack/react-query';
import type {
  FaceAttestResponse,
  PasskeyList,
  PasskeyRow,
  RealNameInfo,
  WebauthnRegistrationResponse,
} from '@esource/shared';
import { api } from '../../../lib/api-client';
import { sha256Hex } from '../../../lib/sha256';

/**
 * The caller's passkeys (face login) and real-name verification (server: modules/passkeys, modules/profile
 * real-name.*; contracts: shared face-login.schema, real-name.schema). Errors are shown by the dialogs themselves.
 */
export const passkeysApi = {
  list: () => api.get<PasskeyList>('/user/passkey/list', undefined, { silent: true }),
  /** enrolment options; the current password re-authenticates (sent as SHA-256, like every password) */
  registerOptions: async (password: string) =>
    api.postJson<FaceAttestResponse>(
      '/passport/getfaceAttest',
      { purpose: 'register', password: await sha256Hex(password) },
      { silent: true },
    ),
  register: (challengeId: string, deviceName: string, credential: WebauthnRegistrationResponse) =>
    api.postJson<PasskeyRow>(
      '/user/passkey/register',
      { challengeId, deviceName, credential },
      { silent: true },
    ),
  remove: async (id: number, password: string) =>
    api.post<null>('/user/passkey/remove', { id, password: await sha256Hex(password) }, { silent: true }),
};

export const realNameApi = {
  info: () => api.get<RealNameInfo>('/user/realName', undefined, { silent: true }),
  verify: (name: string, idNumber: string) =>
    api.post<RealNameInfo>('/user/realName/verify', { name, idNumber }, { silent: true }),
};

export const passkeysQuery = () => queryOptions({ queryKey: ['passkeys'], queryFn: passkeysApi.list });
export const realNameQuery = () => queryOptions({ queryKey: ['realName'], queryFn: realNameApi.info });

/**
 * A name for the device being enrolled, from the browser's own description: "Chrome · Windows", "Safari · iPhone".
 * The user can change it before saving.
 */
export function suggestedDeviceName(
  ua: string = typeof navigator === 'undefined' ? '' : navigator.userAgent,
): string {
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /(Chrome|CriOS|Chromium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'Browser';
  const os = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Mac OS X|Macintosh/.test(ua)
            ? 'Mac'
            : /Linux/.test(ua)
              ? 'Linux'
              : '';
  return os ? `${browser} · ${os}` : browser;
}
