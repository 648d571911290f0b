import { useEffect, useState } from 'react';
import dayjs from 'dayjs';

/** System time from the server (pmsInfo currentSystemTime), advanced with the local clock; minute resolution. */
export function useServerClock(serverTime: string | undefined, fetchedAt: number): string {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(id);
  }, []);
  if (!serverTime) return dayjs(now).format('YYYY-MM-DD HH:mm');
  const offset = Date.parse(serverTime) - (fetchedAt || now);
  return dayjs(now + (Number.isFinite(offset) ? offset : 0)).format('YYYY-MM-DD HH:mm');
}
