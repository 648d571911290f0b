import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { adminInfoQuery } from './api/system-settings-api';

/**
 * "Need help? Contact …": the administrator's contact as set in System settings; nothing when none is set. Plain
 * markup (no antd): the login page stays light.
 */
export function AdminContact({ className }: { className?: string }) {
  const { t } = useTranslation('systemSettings');
  const { data } = useQuery(adminInfoQuery());
  if (!data || (!data.name && !data.phone && !data.mail)) return null;
  const who = [data.name, data.phone, data.mail].filter(Boolean).join(' · ');
  return (
    <div className={className} style={{ fontSize: 12, color: 'rgba(0, 0, 0, 0.45)', marginTop: 12, textAlign: 'center' }} data-testid="admin-contact">
      {t('contact.help', { who })}
      {data.note ? ` (${data.note})` : ''}
    </div>
  );
}
