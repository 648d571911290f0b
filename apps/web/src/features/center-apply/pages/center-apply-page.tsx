import { useState } from 'react';
import {
  App,
  Button,
  Card,
  Empty,
  Form,
  Input,
  Modal,
  Radio,
  Result,
  Space,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import type { TableProps } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { CENTER_APPLY_STATUS, LIMITS, type CenterApplyRow, type Permission } from '@esource/shared';
import { applyPageQuery, centerApplyApi } from '../api/center-apply-api';
import { usePms, useSession } from '../../session';
import { PagedTable } from '../../../components/paged-table';
import { validFields } from '../../../lib/validate-form';

const TABS: { key: 'ing' | 'pass' | 'unpass'; status: number; permission: Permission }[] = [
  { key: 'ing', status: CENTER_APPLY_STATUS.ing, permission: 'apply:ing:query' },
  { key: 'pass', status: CENTER_APPLY_STATUS.pass, permission: 'apply:pass:query' },
  { key: 'unpass', status: CENTER_APPLY_STATUS.unpass, permission: 'apply:unpass:query' },
];

/** Module 9, Center Application (PRO only): in-progress, passed and not-passed lists, review, and applying. */
export default function CenterApplyPage() {
  const { t } = useTranslation('centerApply');
  const has = usePms();
  const env = useSession((s) => s.env);
  const tabs = TABS.filter((x) => has(x.permission));
  const [active, setActive] = useState(tabs[0]?.key ?? 'ing');
  const [applying, setApplying] = useState(false);

  if (env !== 'PRO') {
    return (
      <Result
        status="info"
        title={t('proOnly')}
        subTitle={t('proOnlyHint')}
        data-testid="center-apply-pro-only"
      />
    );
  }
  return (
    <Card data-testid="center-apply-page">
      <Tabs
        activeKey={active}
        onChange={(k) => setActive(k as typeof active)}
        tabBarExtraContent={
          <Button icon={<PlusOutlined />} onClick={() => setApplying(true)} data-testid="center-apply-new">
            {t('apply')}
          </Button>
        }
        items={tabs.map((x) => ({
          key: x.key,
          label: t(`tabs.${x.key}`),
          children: <ApplyList status={x.status} canReview={x.key === 'ing' && has('apply:ing:audit')} />,
        }))}
      />
      {tabs.length === 0 ? <Empty description={t('noLists')} /> : null}
      <ApplyDialog open={applying} onClose={() => setApplying(false)} />
    </Card>
  );
}

function ApplyList({ status, canReview }: { status: number; canReview: boolean }) {
  const { t } = useTranslation('centerApply');
  const [pageNumber, setPage] = useState<number>(LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const [keyword, setKeyword] = useState<string | undefined>();
  const [reviewing, setReviewing] = useState<CenterApplyRow | null>(null);
  const userId = useSession((s) => s.user?.id ?? null);
  const q = useQuery(applyPageQuery({ status, pageNumber, pageSize, keyword }));
  const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '—');
  const columns: TableProps<CenterApplyRow>['columns'] = [
    {
      title: t('fields.project'),
      key: 'project',
      render: (_: unknown, r) => (
        <span>
          {r.projectNo} · {r.projectName}
        </span>
      ),
    },
    { title: t('fields.org'), dataIndex: 'orgName' },
    { title: t('fields.applicant'), dataIndex: 'applicantName', width: 140 },
    { title: t('fields.applyTime'), dataIndex: 'createTime', width: 150, render: time },
    { title: t('fields.note'), dataIndex: 'note', ellipsis: true, render: (v: string | null) => v ?? '—' },
    ...(status === CENTER_APPLY_STATUS.ing
      ? []
      : [
          {
            title: t('fields.reviewer'),
            dataIndex: 'reviewerName',
            width: 130,
            render: (v: string | null) => v ?? '—',
          },
          {
            title: t('fields.reason'),
            dataIndex: 'reviewReason',
            ellipsis: true,
            render: (v: string | null) => v ?? '—',
          },
          { title: t('fields.reviewTime'), dataIndex: 'reviewTime', width: 150, render: time },
        ]),
    ...(canReview
      ? [
          {
            title: t('fields.actions'),
            key: 'actions',
            width: 100,
            render: (_: unknown, r: CenterApplyRow) =>
              // separation of duties: the server refuses a decision on one's own application; say why here
              r.applicantUserId === userId ? (
                <Tooltip title={t('ownApplication')}>
                  <Button type="link" size="small" disabled data-testid="center-apply-review-own">
                    {t('review')}
                  </Button>
                </Tooltip>
              ) : (
                <Button
                  type="link"
                  size="small"
                  onClick={() => setReviewing(r)}
                  data-testid="center-apply-review"
                >
                  {t('review')}
                </Button>
              ),
          },
        ]
      : []),
  ];
  return (
    <>
      <Space style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          maxLength={50}
          placeholder={t('search')}
          style={{ width: 280 }}
          onSearch={(v) => {
            setKeyword(v.trim() || undefined);
            setPage(1);
          }}
        />
      </Space>
      <PagedTable<CenterApplyRow>
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={(p, s) => {
          setPage(p);
          setPageSize(s);
        }}
        empty={t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        rowKey="id"
        columns={columns}
        data-testid={`center-apply-table-${status}`}
      />
      <ReviewDialog row={reviewing} onClose={() => setReviewing(null)} />
    </>
  );
}

function ReviewDialog({ row, onClose }: { row: CenterApplyRow | null; onClose: () => void }) {
  const { t } = useTranslation('centerApply');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<{ pass: boolean; reason: string; siteNo?: string }>();
  const pass = Form.useWatch('pass', form);
  const m = useMutation({
    mutationFn: (v: { pass: boolean; reason: string; siteNo?: string }) =>
      centerApplyApi.review(row!.id, v.pass, v.reason, v.siteNo || undefined),
    onSuccess: (r) => {
      void message.success(r.status === CENTER_APPLY_STATUS.pass ? t('passed') : t('refused'));
      void qc.invalidateQueries({ queryKey: ['centerApply'] });
      onClose();
    },
  });
  return (
    <Modal
      open={row !== null}
      title={t('reviewTitle', { org: row?.orgName ?? '', project: row?.projectNo ?? '' })}
      onCancel={onClose}
      onOk={() => void validFields(form).then((v) => v && m.mutate(v))}
      confirmLoading={m.isPending}
      destroyOnHidden
      okText={t('submit')}
      cancelText={t('cancel')}
    >
      <Form form={form} layout="vertical" initialValues={{ pass: true }} preserve={false}>
        <Form.Item name="pass" label={t('decision')}>
          <Radio.Group
            options={[
              { value: true, label: t('pass') },
              { value: false, label: t('unpass') },
            ]}
          />
        </Form.Item>
        {pass ? (
          <Form.Item
            name="siteNo"
            label={t('siteNo')}
            extra={t('siteNoHint')}
            rules={[{ max: 20, message: t('siteNoMax') }]}
          >
            <Input maxLength={20} />
          </Form.Item>
        ) : null}
        <Form.Item
          name="reason"
          label={t('reason')}
          rules={[{ required: true, whitespace: true, message: t('reasonRequired') }]}
        >
          <Input.TextArea rows={3} maxLength={500} showCount />
        </Form.Item>
      </Form>
      <Typography.Paragraph type="secondary">{t('reviewHint')}</Typography.Paragraph>
    </Modal>
  );
}

function ApplyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('centerApply');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<{ projectNo: string; note?: string }>();
  const m = useMutation({
    mutationFn: (v: { projectNo: string; note?: string }) =>
      centerApplyApi.apply(v.projectNo, v.note || undefined),
    onSuccess: () => {
      void message.success(t('applied'));
      void qc.invalidateQueries({ queryKey: ['centerApply'] });
      onClose();
    },
  });
  return (
    <Modal
      open={open}
      title={t('applyTitle')}
      onCancel={onClose}
      onOk={() => void validFields(form).then((v) => v && m.mutate(v))}
      confirmLoading={m.isPending}
      destroyOnHidden
      okText={t('submit')}
      cancelText={t('cancel')}
    >
      <Typography.Paragraph type="secondary">{t('applyHint')}</Typography.Paragraph>
      <Form form={form} layout="vertical" preserve={false}>
        <Form.Item
          name="projectNo"
          label={t('projectNo')}
          rules={[{ required: true, whitespace: true, message: t('projectNoRequired') }]}
        >
          <Input maxLength={40} data-testid="center-apply-project-no" />
        </Form.Item>
        <Form.Item name="note" label={t('note')}>
          <Input.TextArea rows={3} maxLength={500} showCount />
        </Form.Item>
      </Form>
      <Tag color="gold">{t('proTag')}</Tag>
    </Modal>
  );
}
