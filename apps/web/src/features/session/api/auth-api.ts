import type { Env, LoginResponse, LoginType, LoginVariant, PmsInfoResponse } from '@esource/shared';
import { api } from '../../../lib/api-client';
import { sha256Hex } from '../../../lib/sha256';

export interface EnvOption {
  value: Env;
  enabled: boolean;
  current: boolean;
}
export interface VersionInfo {
  version: string;
  commit: string | null;
  buildTime: string;
}

export async function login(input: {
  account: string;
  password: string;
  loginType: LoginType;
  variant: LoginVariant;
}): Promise<LoginResponse> {
  return api.post<LoginResponse>(
    '/passport/login',
    {
      account: input.account,
      password: await sha256Hex(input.password),
      loginType: input.loginType,
      variant: input.variant,
    },
    { silent: true, ignore401: true },
  );
}

export const authApi = {
  logout: () => api.post<null>('/auth/logout', {}, { ignore401: true, silent: true }),
  /** keep-alive (spec §7): extends the session */
  refresh: () => api.post<{ expiresAt: string }>('/common/refresh', {}, { silent: true }),
  /** session check (spec §4): every 30 s; a 401 means the session is over */
  check: () => api.post<{ expiresAt: string }>('/common/refresh', { check: 1 }, { silent: true }),
  pmsInfo: () => api.postJson<PmsInfoResponse>('/auth/user/pmsInfo', {}),
  envs: () => api.get<EnvOption[]>('/common/getEnv', undefined, { silent: true }),
  switchEnv: (proType: Env) => api.post<null>('/passport/envTypeSwitch', { proType }),
  version: () => api.get<VersionInfo>('/passport/getVersion', undefined, { silent: true }),
  /** GET /getProId (spec §7): resolves a project uuid in the current environment */
  projectIdByUuid: (uuid: string, proType: Env) =>
    api.get<{ proId: number; proType: Env }>('/getProId', { uuid, proType }).then((r) => r.proId),
};
