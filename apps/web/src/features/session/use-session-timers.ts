import { useEffect, useRef } from 'react';
import { LIMITS } from '@esource/shared';
import { authApi } from './api/auth-api';
import { useSession } from './session-store';

/**
 * Keep-alive (spec §7): POST /common/refresh at most every 30 s on input or click, when logged in and not on
 * login or privacy pages. Session check (spec §4): every 30 s; a 401 there opens the Login Expired dialog
 * through the API client.
 */
export function useSessionTimers(active: boolean): void {
  const token = useSession((s) => s.token);
  const last = useRef(0);
  const on = active && Boolean(token);

  useEffect(() => {
    if (!on) return;
    const touch = () => {
      const now = Date.now();
      if (now - last.current < LIMITS.keepAliveThrottleMs) return;
      last.current = now;
      authApi.refresh().catch(() => undefined);
    };
    document.addEventListener('click', touch, true);
    document.addEventListener('input', touch, true);
    return () => {
      document.removeEventListener('click', touch, true);
      document.removeEventListener('input', touch, true);
    };
  }, [on]);

  useEffect(() => {
    if (!on) return;
    const id = setInterval(() => {
      authApi.check().catch(() => undefined);
    }, LIMITS.sessionCheckMs);
    return () => clearInterval(id);
  }, [on]);
}
