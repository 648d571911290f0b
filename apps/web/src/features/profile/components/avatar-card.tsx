import { useState } from 'react';
import { App, Avatar, Button, Popconfirm, Space, Typography, Upload } from 'antd';
import { DeleteOutlined, LoadingOutlined, UploadOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@esource/shared';
import { afterProfileChange, profileApi } from '../api/profile-api';

const TYPES = ['image/png', 'image/jpeg'];

/**
 * The avatar: upload (PNG/JPG ≤ 2 MB, checked here for a quick answer and by the server by content) and removal.
 * The server re-encodes it to a square without metadata; the header's avatar follows once the user info reloads.
 */
export function AvatarCard({
  userId,
  imgUrl,
  name,
}: {
  userId: number;
  imgUrl: string | null;
  name: string;
}) {
  const { t } = useTranslation('profile');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [busy, setBusy] = useState<'upload' | 'remove' | null>(null);

  const run = async (kind: 'upload' | 'remove', call: () => Promise<unknown>, done: string) => {
    setBusy(kind);
    try {
      await call();
      await afterProfileChange(qc);
      void message.success(done);
    } catch (e) {
      void message.error(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="profile-avatar" data-testid="profile-avatar">
      <Avatar
        size={104}
        src={imgUrl ?? undefined}
        icon={<UserOutlined />}
        alt={name}
        style={{ background: '#1668dc', flex: 'none' }}
        data-testid="profile-avatar-image"
        data-src={imgUrl ?? ''}
      />
      <Space wrap size={8} style={{ justifyContent: 'center' }}>
        <Upload
          accept=".png,.jpg,.jpeg,image/png,image/jpeg"
          showUploadList={false}
          maxCount={1}
          beforeUpload={(file) => {
            if (!TYPES.includes(file.type)) {
              void message.error(t('avatar.badType'));
              return Upload.LIST_IGNORE;
            }
            if (file.size > LIMITS.imageMaxBytes) {
              void message.error(t('avatar.tooLarge', { mb: LIMITS.imageMaxBytes / 1024 / 1024 }));
              return Upload.LIST_IGNORE;
            }
            void run('upload', () => profileApi.updateAvatar(userId, file, file.name), t('avatar.uploaded'));
            return false;
          }}
        >
          <Button
            icon={busy === 'upload' ? <LoadingOutlined /> : <UploadOutlined />}
            disabled={busy !== null}
            data-testid="profile-avatar-upload"
          >
            {imgUrl ? t('avatar.change') : t('avatar.upload')}
          </Button>
        </Upload>
        {imgUrl ? (
          <Popconfirm
            title={t('avatar.removeConfirm')}
            okText={t('avatar.remove')}
            cancelText={t('cancel')}
            okButtonProps={{ danger: true, 'data-testid': 'profile-avatar-remove-ok' }}
            onConfirm={() => void run('remove', () => profileApi.removeAvatar(userId), t('avatar.removed'))}
          >
            <Button
              icon={<DeleteOutlined />}
              danger
              loading={busy === 'remove'}
              disabled={busy !== null}
              data-testid="profile-avatar-remove"
            >
              {t('avatar.remove')}
            </Button>
          </Popconfirm>
        ) : null}
      </Space>
      <Typography.Text type="secondary" className="profile-avatar-hint">
        {t('avatar.hint', { mb: LIMITS.imageMaxBytes / 1024 / 1024 })}
      </Typography.Text>
    </div>
  );
}
