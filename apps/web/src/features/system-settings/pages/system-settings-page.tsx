import { useEffect } from 'react';
import { Alert, App, Button, Card, Col, Form, Input, Row, Skeleton, Space, Tag, Typography } from 'antd';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { HOST_KEYS, type AdminInfo, type HostKey } from '@esource/shared';
import { adminInfoQuery, hostsQuery, settingsApi } from '../api/system-settings-api';
import { usePms } from '../../session';
import { serverFieldErrors } from '../../../lib/validate-form';

type ContactValues = Omit<AdminInfo, 'lockVersion' | 'updateTime'>;

/** A server problem's field (`hosts.icrc`) as one of the form's names (`icrc`), or null when the form has none. */
const nameIn =
  <K extends string>(keys: readonly K[]) =>
  (field: string): K | null => {
    const last = field.split('.').at(-1) as K;
    return keys.includes(last) ? last : null;
  };
const CONTACT_KEYS = ['name', 'phone', 'mail', 'note'] as const;

function ContactCard({ canEdit }: { canEdit: boolean }) {
  const { t } = useTranslation('systemSettings');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<ContactValues>();
  const q = useQuery(adminInfoQuery());
  useEffect(() => {
    if (q.data) form.setFieldsValue({ name: q.data.name, phone: q.data.phone, mail: q.data.mail, note: q.data.note });
  }, [q.data, form]);
  const save = useMutation({
    mutationFn: (v: ContactValues) => settingsApi.saveAdminInfo(v, q.data?.lockVersion ?? 0),
    onSuccess: (d) => {
      form.setFields(CONTACT_KEYS.map((name) => ({ name, errors: [] })));
      qc.setQueryData(adminInfoQuery().queryKey, d);
      void message.success(t('saved'));
    },
    onError: (err) => {
      form.setFields(serverFieldErrors(err, nameIn(CONTACT_KEYS)));
      void qc.invalidateQueries({ queryKey: adminInfoQuery().queryKey });
    },
  });
  return (
    <Card title={t('contact.title')} data-testid="settings-contact">
      <Typography.Paragraph type="secondary">{t('contact.intro')}</Typography.Paragraph>
      {q.isLoading ? (
        <Skeleton active />
      ) : (
        <Form form={form} layout="vertical" disabled={!canEdit} onFinish={(v) => save.mutate(v)}>
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item name="name" label={t('contact.name')} rules={[{ max: 30 }]}>
                <Input maxLength={30} data-testid="contact-name" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item name="phone" label={t('contact.phone')}>
                <Input maxLength={20} data-testid="contact-phone" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item name="mail" label={t('contact.mail')}>
                <Input maxLength={100} data-testid="contact-mail" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item name="note" label={t('contact.note')}>
                <Input maxLength={200} placeholder={t('contact.notePlaceholder')} data-testid="contact-note" />
              </Form.Item>
            </Col>
          </Row>
          {canEdit ? (
            <Space>
              <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="contact-save">
                {t('save')}
              </Button>
              {q.data?.updateTime ? (
                <Typography.Text type="secondary">{t('updatedAt', { time: dayjs(q.data.updateTime).format('YYYY-MM-DD HH:mm') })}</Typography.Text>
              ) : null}
            </Space>
          ) : null}
        </Form>
      )}
    </Card>
  );
}

function HostsCard({ canEdit }: { canEdit: boolean }) {
  const { t } = useTranslation('systemSettings');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<Record<HostKey, string>>();
  const q = useQuery(hostsQuery());
  useEffect(() => {
    if (q.data) form.setFieldsValue(Object.fromEntries(q.data.hosts.map((h) => [h.key, h.custom ? h.value : ''])));
  }, [q.data, form]);
  const save = useMutation({
    mutationFn: (v: Record<HostKey, string>) => settingsApi.saveHosts(v, q.data?.lockVersion ?? 0),
    onSuccess: (d) => {
      form.setFields(HOST_KEYS.map((name) => ({ name, errors: [] })));
      qc.setQueryData(hostsQuery().queryKey, d);
      void message.success(t('saved'));
    },
    onError: (err) => {
      form.setFields(serverFieldErrors(err, nameIn(HOST_KEYS)));
      void qc.invalidateQueries({ queryKey: hostsQuery().queryKey });
    },
  });
  if (q.isError) return <Alert type="error" showIcon title={t('loadFailed')} />;
  return (
    <Card title={t('hosts.title')} data-testid="settings-hosts">
      <Typography.Paragraph type="secondary">{t('hosts.intro')}</Typography.Paragraph>
      {q.isLoading || !q.data ? (
        <Skeleton active />
      ) : (
        <Form form={form} layout="horizontal" labelCol={{ flex: '120px' }} disabled={!canEdit} onFinish={(v) => save.mutate(v)}>
          {HOST_KEYS.map((k) => {
            const h = q.data.hosts.find((x) => x.key === k)!;
            return (
              <Form.Item key={k} name={k} label={t(`hosts.key.${k}`)} extra={h.custom ? null : h.fallback ? t('hosts.default', { url: h.fallback }) : t('hosts.defaultSelf')}>
                <Input placeholder={h.fallback || t('hosts.self')} maxLength={300} data-testid={`host-${k}`} suffix={h.custom ? <Tag color="blue">{t('hosts.custom')}</Tag> : null} />
              </Form.Item>
            );
          })}
          {canEdit ? (
            <Space>
              <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="hosts-save">
                {t('save')}
              </Button>
              {q.data.updateTime ? (
                <Typography.Text type="secondary">
                  {t('updatedBy', { time: dayjs(q.data.updateTime).format('YYYY-MM-DD HH:mm'), user: q.data.updatedBy ?? '—' })}
                </Typography.Text>
              ) : null}
            </Space>
          ) : null}
        </Form>
      )}
    </Card>
  );
}

/** /system/settings: the administrator's contact and the host URLs of the suite (system:config:query, update). */
export default function SystemSettingsPage() {
  const has = usePms();
  const canEdit = has('system:config:update');
  return (
    <Space orientation="vertical" size={16} style={{ width: '100%' }} data-testid="system-settings-page">
      <ContactCard canEdit={canEdit} />
      <HostsCard canEdit={canEdit} />
    </Space>
  );
}
