import { useEffect, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { LoginType, PmsInfoResponse } from '@esource/shared';
import { authApi } from './api/auth-api';
import { sessionStore, useSession } from './session-store';
import type { AccessContext } from '../../lib/routing/route-access';

export const userInfoKey = (token: string | null, projectId: number | null, env: string) =>
  ['pmsInfo', token, projectId, env] as const;

/**
 * User info, pms and the current project (POST /auth/user/pmsInfo). Loaded whenever there is a token; reloaded
 * when the project or environment changes, since the server's pms reflect both.
 */
export function useUserInfo() {
  const token = useSession((s) => s.token);
  const projectId = useSession((s) => s.project?.id ?? null);
  const env = useSession((s) => s.env);
  const expired = useSession((s) => s.expired);
  const q = useQuery({
    queryKey: userInfoKey(token, projectId, env),
    queryFn: authApi.pmsInfo,
    enabled: Boolean(token),
    staleTime: 60_000,
    retry: false,
    // keep the frame (top bar, menu) while a new project's or environment's pms load
    // (and behind the Login Expired dialog, so that the frame stays while the user reads it)
    placeholderData: (prev, prevQuery) => (prevQuery?.queryKey[1] === token || expired ? prev : undefined),
  });

  // keep the session's copy of the user and project in step with the server
  const data = q.isPlaceholderData ? undefined : q.data;
  useEffect(() => {
    if (!data) return;
    syncSessionFromUserInfo(data);
  }, [data]);
  return q;
}

export function syncSessionFromUserInfo(data: PmsInfoResponse): void {
  const s = sessionStore.get();
  const patch: Parameters<typeof sessionStore.set>[0] = {};
  const lt = data.user.loginType as LoginType;
  if (s.loginType !== lt) patch.loginType = lt;
  if (s.orgId !== data.user.orgId) patch.orgId = data.user.orgId;
  if (s.passwordChangeRequired !== data.user.passwordChangeRequired)
    patch.passwordChangeRequired = data.user.passwordChangeRequired;
  if (!s.user || s.user.id !== data.user.id || s.user.name !== data.user.name) {
    patch.user = {
      id: data.user.id,
      name: data.user.name,
      account: data.user.account,
      roleCode: data.user.roleCode,
      imgUrl: data.user.imgUrl,
      token: s.token ?? '',
      projectType: data.user.projectType,
      loginType: data.user.loginType,
    };
  }
  if (s.project && data.project && data.project.id === s.project.id) {
    const p = data.project;
    // a site user with exactly one site of the project works in that site (header proSiteId)
    const onlySite = lt === 3 && p.siteIds && p.siteIds.length === 1 ? p.siteIds[0]! : null;
    if (onlySite !== null && s.proSiteId !== onlySite) patch.proSiteId = onlySite;
    if (p.no !== s.project.no || p.name !== s.project.name || p.status !== s.project.status) {
      patch.project = { ...s.project, no: p.no, name: p.name, status: p.status };
    }
  }
  if (Object.keys(patch).length > 0) sessionStore.set(patch);
}

/** The access context (pms, login type, env) the route table is filtered with; null until loaded. */
export function useAccess(): AccessContext | null {
  const { data: current, isPlaceholderData } = useUserInfo();
  // the previous project's pms must not decide this project's routes
  const data = isPlaceholderData ? undefined : current;
  const loginType = useSession((s) => s.loginType);
  const env = useSession((s) => s.env);
  return useMemo(() => {
    if (!data) return null;
    return {
      pms: new Set(data.pms),
      loginType: (data.user.loginType as LoginType) ?? loginType,
      env,
      modules: data.menus.map((m) => m.no),
    };
  }, [data, loginType, env]);
}
