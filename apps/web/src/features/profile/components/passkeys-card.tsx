import { useState } from 'react';
import { Alert, Button, Card, Empty, Grid, List, Skeleton, Tag, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined, ScanOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { PasskeyRow } from '@esource/shared';
import { webauthnSupported } from '../../session';
import { passkeysQuery } from '../api/passkeys-api';
import { PasskeyEnrolDialog } from './passkey-enrol-dialog';
import { PasskeyRemoveDialog } from './passkey-remove-dialog';

const when = (iso: string) => dayjs(iso).format('YYYY-MM-DD HH:mm');

/**
 * Face login: the caller's passkeys (at most 10, all listed, oldest first) with adding and removing. A passkey lives in
 * the device's authenticator (Face ID, Windows Hello, Android face unlock); the login pages' face button uses it.
 */
export function PasskeysCard() {
  const { t } = useTranslation('profile');
  const q = useQuery(passkeysQuery());
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<PasskeyRow | null>(null);
  const [supported] = useState(webauthnSupported);
  // phones: the remove button goes under the passkey instead of squeezing its text
  const narrow = Grid.useBreakpoint().sm === false;
  const data = q.data;
  const full = data ? data.rows.length >= data.max : false;

  return (
    <Card
      title={t('passkeys.title')}
      className="profile-card"
      data-testid="profile-passkeys"
      extra={
        <Button
          type="primary"
          icon={<PlusOutlined />}
          disabled={!supported || !data?.available || full}
          onClick={() => setAdding(true)}
          data-testid="passkey-add"
        >
          {t('passkeys.add')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('passkeys.desc')}</Typography.Paragraph>
      {!supported ? (
        <Alert type="info" showIcon title={t('passkeys.unsupported')} className="profile-passkeys-alert" />
      ) : null}
      {data && !data.available ? (
        <Alert type="warning" showIcon title={t('passkeys.unavailable')} className="profile-passkeys-alert" />
      ) : null}
      {data && full ? (
        <Alert
          type="info"
          showIcon
          title={t('passkeys.full', { max: data.max })}
          className="profile-passkeys-alert"
        />
      ) : null}
      {q.isError && !data ? (
        <Alert
          type="error"
          showIcon
          title={t('passkeys.loadFailed')}
          description={q.error.message}
          action={
            <Button size="small" onClick={() => void q.refetch()}>
              {t('retry')}
            </Button>
          }
        />
      ) : !data ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : (
        <List<PasskeyRow>
          dataSource={data.rows}
          itemLayout={narrow ? 'vertical' : 'horizontal'}
          data-testid="passkey-list"
          locale={{
            emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('passkeys.empty')} />,
          }}
          renderItem={(p) => (
            <List.Item
              data-testid="passkey-row"
              actions={[
                <Button
                  key="remove"
                  danger
                  type="link"
                  icon={<DeleteOutlined />}
                  onClick={() => setRemoving(p)}
                  data-testid="passkey-remove"
                >
                  {t('passkeys.remove')}
                </Button>,
              ]}
            >
              <List.Item.Meta
                avatar={<ScanOutlined className="profile-row-icon" />}
                title={
                  <span className="profile-passkey-title">
                    <span data-testid="passkey-name">{p.deviceName}</span>
                    <Tag color={p.deviceType === 'multiDevice' ? 'blue' : 'default'}>
                      {p.deviceType === 'multiDevice' ? t('passkeys.synced') : t('passkeys.deviceBound')}
                    </Tag>
                  </span>
                }
                description={
                  <span data-testid="passkey-dates">
                    {t('passkeys.addedAt', { time: when(p.createdAt) })}
                    {' · '}
                    {p.lastUsedAt
                      ? t('passkeys.usedAt', { time: when(p.lastUsedAt) })
                      : t('passkeys.neverUsed')}
                  </span>
                }
              />
            </List.Item>
          )}
        />
      )}
      {adding ? <PasskeyEnrolDialog open onClose={() => setAdding(false)} /> : null}
      <PasskeyRemoveDialog passkey={removing} onClose={() => setRemoving(null)} />
    </Card>
  );
}
