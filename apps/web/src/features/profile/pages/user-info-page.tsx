import { useState } from 'react';
import { Button, Card, Col, Descriptions, Result, Row, Skeleton, Space, Tag, Typography } from 'antd';
import { EditOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useUserInfo } from '../../session';
import { AvatarCard } from '../components/avatar-card';
import { PersonalInfoDialog } from '../components/personal-info-dialog';
import { SecurityCard } from '../components/security-card';
import { RealNameCard } from '../components/real-name-card';
import { PasskeysCard } from '../components/passkeys-card';
import '../profile.css';

const ENV_COLOR: Record<string, string> = { DEV: 'default', UAT: 'orange', PRO: 'green' };

/**
 * /user-info: personal settings (spec §1, §2). The avatar, name, e-mail and organisation; editing name and e-mail;
 * the phone change by a code to the new number; the password change (the user menu's dialog); real-name verification;
 * face login's passkeys (add, remove).
 */
export default function UserInfoPage() {
  const { t } = useTranslation(['profile', 'auth']);
  const q = useUserInfo();
  const [editing, setEditing] = useState(false);

  if (q.isError && !q.data) {
    return (
      <Card data-testid="user-info-page">
        <Result
          status="warning"
          title={t('loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      </Card>
    );
  }
  if (!q.data) {
    return (
      <Card data-testid="user-info-loading">
        <Skeleton avatar active paragraph={{ rows: 6 }} />
      </Card>
    );
  }
  const u = q.data.user;
  const none = <Typography.Text type="secondary">{t('none')}</Typography.Text>;
  return (
    <div className="profile-page" data-testid="user-info-page">
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8} xxl={6}>
          <Card className="profile-card profile-identity">
            <AvatarCard userId={u.id} imgUrl={u.imgUrl} name={u.name} />
            <Typography.Title level={4} className="profile-name" data-testid="profile-name">
              {u.name}
            </Typography.Title>
            <Typography.Text type="secondary">{u.account}</Typography.Text>
            <Space wrap size={[4, 4]} className="profile-tags">
              <Tag color="blue">{t(`auth:loginType.${u.loginType}`)}</Tag>
              {u.roleCode ? <Tag>{u.roleCode}</Tag> : null}
              <Tag color={ENV_COLOR[u.projectType]}>{u.projectType}</Tag>
            </Space>
            {u.orgName ? (
              <Typography.Text type="secondary" className="profile-org">
                {u.orgName}
              </Typography.Text>
            ) : null}
          </Card>
        </Col>
        <Col xs={24} lg={16} xxl={18}>
          <Space orientation="vertical" size={16} style={{ width: '100%' }}>
            <Card
              title={t('basic')}
              className="profile-card"
              extra={
                <Button
                  type="link"
                  icon={<EditOutlined />}
                  onClick={() => setEditing(true)}
                  data-testid="profile-info-edit"
                >
                  {t('edit')}
                </Button>
              }
            >
              <Descriptions
                column={{ xs: 1, md: 2 }}
                bordered
                size="middle"
                styles={{ label: { width: 140 } }}
              >
                <Descriptions.Item label={t('fields.name')}>
                  <span data-testid="profile-field-name">{u.name}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t('fields.account')}>{u.account}</Descriptions.Item>
                <Descriptions.Item label={t('fields.mail')}>
                  <span data-testid="profile-field-mail">{u.mail || none}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t('fields.org')}>{u.orgName || none}</Descriptions.Item>
                <Descriptions.Item label={t('fields.loginType')}>
                  {t(`auth:loginType.${u.loginType}`)}
                </Descriptions.Item>
                <Descriptions.Item label={t('fields.role')}>{u.roleCode || none}</Descriptions.Item>
              </Descriptions>
            </Card>
            <SecurityCard user={u} />
            <RealNameCard userName={u.name} />
            <PasskeysCard />
          </Space>
        </Col>
      </Row>
      {editing ? (
        <PersonalInfoDialog
          open
          userId={u.id}
          initial={{ name: u.name, mail: u.mail }}
          onClose={() => setEditing(false)}
        />
      ) : null}
    </div>
  );
}
