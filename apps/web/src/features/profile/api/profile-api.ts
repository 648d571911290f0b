import type { QueryClient } from '@tanstack/react-query';
import type { PersonalInfo, SendBindPhoneCodeResponse } from '@esource/shared';
import { api } from '../../../lib/api-client';

/**
 * Personal settings (server: apps/server/src/modules/profile; contracts: shared profile.schema). Every call acts on
 * the caller; the user's id goes along as the spec's calls carry it, and the server refuses anyone else's.
 */
export const profileApi = {
  updatePersonalInfo: (id: number, b: { name: string; mail: string }) =>
    api.post<PersonalInfo>('/user/updatePersonalInfo', { id, ...b }, { silent: true }),
  updateAvatar: (id: number, file: Blob, name: string) => {
    const fd = new FormData();
    fd.append('id', String(id));
    fd.append('file', file, name);
    return api.post<PersonalInfo>('/user/updateAvatar', undefined, { multipart: fd, silent: true });
  },
  removeAvatar: (id: number) => api.post<PersonalInfo>('/user/removeAvatar', { id }, { silent: true }),
  sendBindPhoneCode: (phone: string) =>
    api.post<SendBindPhoneCodeResponse>('/passport/sendCode4BindPhone', { phone }, { silent: true }),
  changeBindPhone: (id: number, phone: string, code: string) =>
    api.post<{ phone: string }>('/user/changeBindPhone', { id, phone, code }, { silent: true }),
};

/** After a change: the user info (page, header avatar, watermark phone) loads again. */
export async function afterProfileChange(qc: QueryClient): Promise<void> {
  await qc.invalidateQueries({ queryKey: ['pmsInfo'] });
}
