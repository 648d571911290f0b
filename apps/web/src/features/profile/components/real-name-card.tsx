import { useState } from 'react';
import { Alert, Button, Card, Descriptions, Skeleton, Tag, Typography } from 'antd';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { realNameQuery } from '../api/passkeys-api';
import { RealNameDialog } from './real-name-dialog';

/**
 * Real-name verification: the result kept on the user (the name, the ID number masked, when and by which provider) and
 * a check of name + resident ID number. The full number is never shown again: the server does not keep it.
 */
export function RealNameCard({ userName }: { userName: string }) {
  const { t } = useTranslation('profile');
  const q = useQuery(realNameQuery());
  const [open, setOpen] = useState(false);
  const r = q.data;

  return (
    <Card title={t('realname.cardTitle')} className="profile-card" data-testid="profile-realname">
      {q.isError && !r ? (
        <Alert
          type="error"
          showIcon
          title={t('realname.loadFailed')}
          description={q.error.message}
          action={
            <Button size="small" onClick={() => void q.refetch()}>
              {t('retry')}
            </Button>
          }
        />
      ) : !r ? (
        <Skeleton active paragraph={{ rows: 1 }} />
      ) : (
        <>
          <div className="profile-row">
            <SafetyCertificateOutlined className="profile-row-icon" />
            <div className="profile-row-text">
              <Typography.Text strong>
                {t('realname.item')}{' '}
                {r.verified ? (
                  <Tag color="success" data-testid="realname-status">
                    {t('realname.verified')}
                  </Tag>
                ) : (
                  <Tag data-testid="realname-status">{t('realname.notVerified')}</Tag>
                )}
              </Typography.Text>
              <Typography.Text type="secondary">{t('realname.itemDesc')}</Typography.Text>
            </div>
            <Button onClick={() => setOpen(true)} disabled={!r.available} data-testid="realname-start">
              {r.verified ? t('realname.again') : t('realname.start')}
            </Button>
          </div>
          {!r.available ? <Alert type="warning" showIcon title={t('realname.unavailable')} /> : null}
          {r.verified ? (
            <Descriptions
              column={{ xs: 1, md: 2 }}
              size="small"
              bordered
              className="profile-realname-result"
              styles={{ label: { width: 120 } }}
            >
              <Descriptions.Item label={t('realname.name')}>
                <span data-testid="realname-result-name">{r.name}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('realname.idNumber')}>
                <span data-testid="realname-result-id">{r.idNumberMasked}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('realname.verifiedAt')}>
                {r.verifiedAt ? dayjs(r.verifiedAt).format('YYYY-MM-DD HH:mm') : ''}
              </Descriptions.Item>
              <Descriptions.Item label={t('realname.provider')}>
                {r.provider ? t(`realname.providers.${r.provider}`, { defaultValue: r.provider }) : ''}
              </Descriptions.Item>
            </Descriptions>
          ) : null}
        </>
      )}
      {open && r ? (
        <RealNameDialog
          open
          defaultName={r.name ?? userName}
          remaining={r.remainingToday}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </Card>
  );
}
