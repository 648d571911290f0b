import { useEffect } from 'react';
import { Alert, App, Descriptions, Drawer, Form, Modal, Skeleton, Space, Tag, Typography } from 'antd';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { UserAddResponse, UserListRow } from '@esource/shared';
import { systemRoleOptionsQuery, userDetailQuery, usersApi } from '../api/users-api';
import { usePms } from '../../session';
import { LimitedInput, LimitedTextArea, maxRule } from '../../../components/limited-input';

export const fmtTime = (v: string | null | undefined): string =>
  v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—';

/** The generated initial password, shown once (it is never shown again) with a copy button. */
export function InitialPasswordDialog({
  added,
  onClose,
}: {
  added: UserAddResponse | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('users');
  return (
    <Modal
      open={added !== null}
      title={t('addedTitle')}
      onCancel={onClose}
      onOk={onClose}
      okText={t('passwordNoted')}
      cancelButtonProps={{ style: { display: 'none' } }}
      mask={{ closable: false }}
    >
      {added ? (
        <div data-testid="initial-password-dialog">
          <Alert type="warning" showIcon title={t('passwordOnce')} style={{ marginBottom: 16 }} />
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label={t('fields.account')}>{added.account}</Descriptions.Item>
            <Descriptions.Item label={t('initialPassword')}>
              <Typography.Text code copyable={{ text: added.initialPassword }} data-testid="initial-password">
                {added.initialPassword}
              </Typography.Text>
            </Descriptions.Item>
          </Descriptions>
        </div>
      ) : null}
    </Modal>
  );
}

/** Enable or disable a user; a reason is required (it goes into the audit trail). */
export function UserStatusDialog({ user, onClose }: { user: UserListRow | null; onClose: () => void }) {
  const { t } = useTranslation('users');
  const { message } = App.useApp();
  const [form] = Form.useForm<{ reason: string }>();
  const qc = useQueryClient();
  const next = user?.status === 1 ? 0 : 1;
  useEffect(() => {
    if (user) form.resetFields();
  }, [user, form]);
  const m = useMutation({
    mutationFn: (reason: string) => usersApi.setStatus(user!.id, next, reason),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['users'] });
      void message.success(next === 1 ? t('enabledOk') : t('disabledOk'));
      onClose();
    },
  });
  return (
    <Modal
      open={user !== null}
      title={user ? t(next === 1 ? 'enableTitle' : 'disableTitle', { name: user.name }) : ''}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={next === 1 ? t('enable') : t('disable')}
      okButtonProps={{ danger: next === 0 }}
      confirmLoading={m.isPending}
    >
      {next === 0 ? (
        <Alert type="info" showIcon title={t('disableNote')} style={{ marginBottom: 16 }} />
      ) : null}
      <Form form={form} layout="vertical" onFinish={(v) => m.mutate(v.reason)}>
        <Form.Item
          name="reason"
          label={t('reason')}
          rules={[
            { required: true, whitespace: true, message: t('validation.reasonRequired') },
            maxRule(500),
          ]}
        >
          <LimitedTextArea max={500} rows={3} data-testid="status-reason" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Sends a system message to one or more users. */
export function SendMessageDialog({ users, onClose }: { users: UserListRow[] | null; onClose: () => void }) {
  const { t } = useTranslation('users');
  const { message } = App.useApp();
  const [form] = Form.useForm<{ title: string; content?: string }>();
  useEffect(() => {
    if (users) form.resetFields();
  }, [users, form]);
  const m = useMutation({
    mutationFn: (v: { title: string; content?: string }) =>
      usersApi.sendMessage(
        users!.map((u) => u.id),
        v.title,
        v.content ?? '',
      ),
    onSuccess: (r) => {
      void message.success(t('messageSent', { count: r.sent }));
      onClose();
    },
  });
  return (
    <Modal
      open={users !== null}
      title={t('sendMessage')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('send')}
      confirmLoading={m.isPending}
    >
      <div style={{ marginBottom: 12 }}>
        <Typography.Text type="secondary">{t('recipients')}: </Typography.Text>
        <Space size={[4, 4]} wrap>
          {(users ?? []).slice(0, 20).map((u) => (
            <Tag key={u.id}>{u.name}</Tag>
          ))}
          {(users?.length ?? 0) > 20 ? <Tag>+{(users?.length ?? 0) - 20}</Tag> : null}
        </Space>
      </div>
      <Form form={form} layout="vertical" onFinish={(v) => m.mutate(v)}>
        <Form.Item
          name="title"
          label={t('messageTitle')}
          rules={[{ required: true, whitespace: true, message: t('validation.titleRequired') }, maxRule(200)]}
        >
          <LimitedInput max={200} />
        </Form.Item>
        <Form.Item rules={[maxRule(5000)]} name="content" label={t('messageContent')}>
          <LimitedTextArea max={5000} rows={5} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Everything about one user (the read is audited on the server since it shows the ID number). */
export function UserDetailDrawer({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const { t, i18n } = useTranslation('users');
  const has = usePms();
  const q = useQuery(userDetailQuery(userId));
  const roles = useQuery(systemRoleOptionsQuery(userId !== null && has('system:role:query')));
  const d = q.data;
  const role = roles.data?.content.find((r) => r.id === d?.systemRoleId);
  const roleName = role
    ? i18n.language === 'en_US' && role.nameEn
      ? role.nameEn
      : role.name
    : d?.systemRoleName;
  return (
    <Drawer open={userId !== null} onClose={onClose} title={t('detailTitle')} size={560}>
      {q.isPending ? (
        <Skeleton active />
      ) : q.isError || !d ? (
        <Alert type="error" showIcon title={q.error?.message ?? t('loadFailed')} />
      ) : (
        <Descriptions
          column={1}
          bordered
          size="small"
          data-testid="user-detail"
          styles={{ label: { width: 160 } }}
        >
          <Descriptions.Item label={t('fields.account')}>{d.account}</Descriptions.Item>
          <Descriptions.Item label={t('fields.name')}>{d.name}</Descriptions.Item>
          <Descriptions.Item label={t('fields.phone')}>{d.phone ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.mail')}>{d.mail ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.idNumber')}>{d.idNumber ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.org')}>{d.orgName ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.dept')}>{d.deptName ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.loginTypes')}>
            <Space size={[4, 4]} wrap>
              {d.loginTypes.map((lt) => (
                <Tag key={lt}>{t(`loginType.${lt}`)}</Tag>
              ))}
            </Space>
          </Descriptions.Item>
          <Descriptions.Item label={t('fields.systemRole')}>{roleName ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.permissionGroup')}>
            {d.permissionGroupName ?? '—'}
          </Descriptions.Item>
          <Descriptions.Item label={t('fields.status')}>
            <Space>
              <Tag color={d.status === 1 ? 'green' : 'default'}>{t(`status.${d.status}`)}</Tag>
              {d.locked ? <Tag color="red">{t('locked')}</Tag> : null}
            </Space>
          </Descriptions.Item>
          <Descriptions.Item label={t('fields.lastLoginTime')}>{fmtTime(d.lastLoginTime)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.passwordChangedAt')}>
            {d.passwordChangedAt ? fmtTime(d.passwordChangedAt) : t('passwordNeverChanged')}
          </Descriptions.Item>
          <Descriptions.Item label={t('fields.createTime')}>{fmtTime(d.createTime)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.updateTime')}>{fmtTime(d.updateTime)}</Descriptions.Item>
        </Descriptions>
      )}
    </Drawer>
  );
}
