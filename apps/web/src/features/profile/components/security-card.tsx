import { Suspense, useState } from 'react';
import { Button, Card, Tag, Typography } from 'antd';
import { KeyOutlined, MobileOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { maskPhone, type UserInfo } from '@esource/shared';
import { ModifyPasswordDialog } from '../../password';
import { PhoneChangeDialog } from './phone-change-dialog';

/**
 * Account security: the bound phone number (masked; changed with a code to the new number) and the login password
 * (changed in the Modify Password dialog of the user menu: the spec's rules, SHA-256 on the client).
 */
export function SecurityCard({ user }: { user: UserInfo }) {
  const { t } = useTranslation('profile');
  const [phoneOpen, setPhoneOpen] = useState(false);
  const [pwdOpen, setPwdOpen] = useState(false);
  const masked = maskPhone(user.phone);
  return (
    <Card title={t('security')} className="profile-card" data-testid="profile-security">
      <div className="profile-row">
        <MobileOutlined className="profile-row-icon" />
        <div className="profile-row-text">
          <Typography.Text strong>{t('phone.item')}</Typography.Text>
          <Typography.Text type="secondary">{t('phone.itemDesc')}</Typography.Text>
        </div>
        <Typography.Text className="profile-row-value" data-testid="profile-phone">
          {masked || t('none')}
        </Typography.Text>
        <Button onClick={() => setPhoneOpen(true)} data-testid="profile-phone-change">
          {user.phone ? t('phone.change') : t('phone.bind')}
        </Button>
      </div>
      <div className="profile-row">
        <KeyOutlined className="profile-row-icon" />
        <div className="profile-row-text">
          <Typography.Text strong>{t('password.item')}</Typography.Text>
          <Typography.Text type="secondary" data-testid="profile-password-changed">
            {user.passwordChangedAt
              ? t('password.changedAt', { time: dayjs(user.passwordChangedAt).format('YYYY-MM-DD HH:mm') })
              : t('password.never')}
            {user.passwordChangeDue ? (
              <Tag color="warning" style={{ marginInlineStart: 8 }}>
                {t('password.due')}
              </Tag>
            ) : null}
          </Typography.Text>
        </div>
        <Button onClick={() => setPwdOpen(true)} data-testid="profile-password-change">
          {t('password.changeAction')}
        </Button>
      </div>
      <PhoneChangeDialog
        open={phoneOpen}
        userId={user.id}
        current={masked}
        onClose={() => setPhoneOpen(false)}
      />
      {pwdOpen ? (
        <Suspense fallback={null}>
          <ModifyPasswordDialog open={pwdOpen} userId={user.id} onClose={() => setPwdOpen(false)} />
        </Suspense>
      ) : null}
    </Card>
  );
}
