import { useState } from 'react';
import { Alert, Button, Card, Input, Space, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { SmsOutboxRow } from '@esource/shared';
import { PagedTable, useUrlPaging } from '../../../components/paged-table';
import { smsOutboxQuery } from '../api/sms-outbox-api';

/**
 * /system/smsOutbox: the text messages the development SMS provider kept instead of sending (SMS_PROVIDER=outbox),
 * newest first, for system administrators — e.g. to hand a tester the verification code of a phone change. With a
 * real gateway configured nothing is kept, and the page says so.
 */
export default function SmsOutboxPage() {
  const { t } = useTranslation('smsOutbox');
  const [phoneText, setPhoneText] = useState('');
  const [phone, setPhone] = useState<string | undefined>(undefined);
  const { pageNumber, pageSize, onPage, first } = useUrlPaging();
  const q = useQuery(smsOutboxQuery({ pageNumber, pageSize, ...(phone ? { phone } : {}) }));
  const provider = q.data?.provider;

  const columns: TableColumnsType<SmsOutboxRow> = [
    {
      title: t('col.time'),
      dataIndex: 'createdAt',
      width: 170,
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm:ss'),
    },
    {
      title: t('col.phone'),
      dataIndex: 'phone',
      width: 140,
      render: (v: string) => <Typography.Text>{v}</Typography.Text>,
    },
    {
      title: t('col.user'),
      dataIndex: 'userName',
      width: 170,
      ellipsis: true,
      render: (v: string | null) => v ?? <Typography.Text type="secondary">—</Typography.Text>,
    },
    {
      title: t('col.kind'),
      dataIndex: 'template',
      width: 140,
      render: (v: string) => <Tag color="blue">{t(`kind.${v}`, { defaultValue: v })}</Tag>,
    },
    {
      title: t('col.body'),
      dataIndex: 'body',
      render: (v: string, r) => (
        <Typography.Paragraph style={{ margin: 0 }} data-testid={`sms-body-${r.id}`} data-phone={r.phone}>
          {v}
        </Typography.Paragraph>
      ),
    },
  ];

  return (
    <Card size="small" data-testid="sms-outbox-page">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }}>
        {t('intro')}
      </Typography.Paragraph>
      {provider === 'http' ? (
        <Alert
          type="info"
          showIcon
          title={t('gateway')}
          style={{ marginBottom: 12 }}
          data-testid="sms-outbox-gateway"
        />
      ) : null}
      <Space wrap size={12} style={{ display: 'flex', marginBottom: 16 }}>
        <Input.Search
          allowClear
          maxLength={20}
          inputMode="numeric"
          value={phoneText}
          onChange={(e) => setPhoneText(e.target.value.replace(/\D/g, ''))}
          onSearch={(v) => {
            setPhone(v.trim() || undefined);
            first();
          }}
          placeholder={t('filterPhone')}
          style={{ width: 240 }}
          data-testid="sms-outbox-phone"
        />
        <Button
          icon={<ReloadOutlined />}
          onClick={() => void q.refetch()}
          aria-label={t('refresh')}
          data-testid="sms-outbox-refresh"
        >
          {t('refresh')}
        </Button>
      </Space>
      {q.isError && q.data ? (
        <Alert
          type="warning"
          showIcon
          title={t('refreshFailed')}
          description={q.error.message}
          style={{ marginBottom: 12 }}
        />
      ) : null}
      <PagedTable<SmsOutboxRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={onPage}
        empty={phone ? t('emptyFiltered') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        data-testid="sms-outbox-table"
      />
    </Card>
  );
}
