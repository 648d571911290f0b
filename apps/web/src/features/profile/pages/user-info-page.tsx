import { Alert, Card, Descriptions, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { useUserInfo } from '../../session';
import { maskPhone } from '../../watermark';

/** /user-info: personal settings (spec §2). Phone change, password reset and real-name verification come later. */
export default function UserInfoPage() {
  const { t } = useTranslation(['layout', 'auth']);
  const { data } = useUserInfo();
  if (!data) return <Skeleton active />;
  const u = data.user;
  return (
    <Card title={t('layout:personalSettings')} data-testid="user-info-page">
      <Descriptions column={{ xs: 1, md: 2 }} bordered size="middle">
        <Descriptions.Item label={t('layout:profile.name')}>{u.name}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.account')}>{u.account}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.phone')}>{maskPhone(u.phone) || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.mail')}>{u.mail ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.org')}>{u.orgName ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.loginType')}>
          {t(`auth:loginType.${u.loginType}`)}
        </Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.role')}>{u.roleCode ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('layout:profile.passwordChangedAt')}>
          {u.passwordChangedAt ? dayjs(u.passwordChangedAt).format('YYYY-MM-DD HH:mm') : '—'}
        </Descriptions.Item>
      </Descriptions>
      <Alert style={{ marginTop: 16 }} type="info" showIcon title={t('layout:profile.later')} />
    </Card>
  );
}
