import { useEffect, useMemo, useState } from 'react';
import {
  Button,
  Checkbox,
  Col,
  Empty,
  Form,
  Modal,
  Row,
  Select,
  Space,
  TimePicker,
  Typography,
} from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { PermissionGroupRow } from '@esource/shared';
import { rolesApi, type GroupInput } from '../api/roles-api';
import {
  rowsToWindows,
  WEEKDAYS,
  windowRowProblem,
  windowsToRows,
  type LoginWindowRow,
} from '../lib/login-windows';
import { LimitedInput } from '../../../components/limited-input';

interface FormValues {
  name: string;
  description?: string;
  timezone: string;
  reviewerUserId?: number;
  windows: LoginWindowRow[];
}

function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  const all = intl.supportedValuesOf?.('timeZone') ?? [];
  const common = [
    'Asia/Shanghai',
    'Asia/Hong_Kong',
    'Asia/Tokyo',
    'Europe/London',
    'America/New_York',
    'UTC',
  ];
  return [...new Set([...common, ...all])];
}

/**
 * Add or edit a permission group: name, description, time zone, reviewer, and the login windows (weekdays and a
 * start / end time; several rows; the end after the start). With no window, logging in is allowed at any time.
 */
export function GroupFormDialog({
  open,
  group,
  onClose,
}: {
  open: boolean;
  group: PermissionGroupRow | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('roles');
  const [form] = Form.useForm<FormValues>();
  const qc = useQueryClient();
  const [kw, setKw] = useState('');
  const users = useQuery({
    queryKey: ['roles', 'reviewerPicker', kw],
    queryFn: () => rolesApi.pickUsers(kw),
    enabled: open,
    staleTime: 10_000,
  });
  const zones = useMemo(timeZones, []);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    setKw('');
    form.setFieldsValue(
      group
        ? {
            name: group.name,
            description: group.description ?? undefined,
            timezone: group.timezone,
            reviewerUserId: group.reviewerUserId ?? undefined,
            windows: windowsToRows(group.loginWindows),
          }
        : { timezone: 'Asia/Shanghai', windows: [] },
    );
  }, [open, group, form]);

  const save = useMutation({
    mutationFn: (v: FormValues) => {
      const input: GroupInput = {
        name: v.name,
        description: v.description || undefined,
        timezone: v.timezone,
        reviewerUserId: v.reviewerUserId,
        loginWindows: rowsToWindows(v.windows ?? []),
      };
      return group ? rolesApi.updateGroup({ ...input, id: group.id }) : rolesApi.addGroup(input);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['roles', 'groups'] });
      void qc.invalidateQueries({ queryKey: ['users', 'groups'] });
      onClose();
    },
  });

  const reviewerOptions = (users.data ?? []).map((u) => ({
    value: u.id,
    label: `${u.name} (${u.account})${u.orgName ? ` · ${u.orgName}` : ''}`,
  }));
  if (group?.reviewerUserId && !reviewerOptions.some((o) => o.value === group.reviewerUserId))
    reviewerOptions.push({
      value: group.reviewerUserId,
      label: group.reviewerName ?? String(group.reviewerUserId),
    });

  return (
    <Modal
      open={open}
      title={group ? t('groups.editTitle') : t('groups.addTitle')}
      width={820}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('save')}
      confirmLoading={save.isPending}
    >
      <Form
        form={form}
        layout="vertical"
        onFinish={() => save.mutate(form.getFieldsValue(true) as FormValues)}
      >
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="name"
              label={t('groups.name')}
              rules={[
                { required: true, whitespace: true, message: t('validation.groupNameRequired') },
                { max: 50 },
              ]}
            >
              <LimitedInput max={50} data-testid="group-name" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="timezone" label={t('groups.timezone')} rules={[{ required: true }]}>
              <Select showSearch options={zones.map((z) => ({ value: z, label: z }))} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="reviewerUserId" label={t('groups.reviewer')}>
              <Select
                allowClear
                showSearch={{ filterOption: false, onSearch: setKw }}
                loading={users.isFetching}
                options={reviewerOptions}
                placeholder={t('groups.reviewerPlaceholder')}
                notFoundContent={users.isFetching ? undefined : t('groups.noUsers')}
                data-testid="group-reviewer"
              />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="description" label={t('fields.description')} rules={[{ max: 200 }]}>
              <LimitedInput max={200} />
            </Form.Item>
          </Col>
        </Row>
        <Typography.Text strong>{t('groups.windows')}</Typography.Text>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {t('groups.windowsHint')}
        </Typography.Paragraph>
        <Form.List name="windows">
          {(fields, { add, remove }) => (
            <>
              {fields.length === 0 ? (
                <Empty
                  image={Empty.PRESENTED_IMAGE_SIMPLE}
                  description={t('groups.noWindows')}
                  style={{ margin: '8px 0' }}
                />
              ) : null}
              {fields.map((f) => (
                <div
                  key={f.key}
                  style={{
                    border: '1px solid #f0f0f0',
                    borderRadius: 6,
                    padding: '12px 12px 0',
                    marginBottom: 8,
                  }}
                  data-testid="window-row"
                >
                  <Row gutter={12} align="top" wrap={false}>
                    <Col flex="auto">
                      <Form.Item
                        name={[f.name, 'days']}
                        rules={[
                          { required: true, type: 'array', min: 1, message: t('validation.windowDays') },
                        ]}
                        style={{ marginBottom: 8 }}
                      >
                        <Checkbox.Group
                          options={WEEKDAYS.map((d) => ({ value: d, label: t(`weekday.${d}`) }))}
                        />
                      </Form.Item>
                      <Space align="start" wrap>
                        <Form.Item
                          name={[f.name, 'start']}
                          rules={[{ required: true, message: t('validation.windowTimes') }]}
                          style={{ marginBottom: 12 }}
                        >
                          <TimePicker
                            format="HH:mm"
                            minuteStep={5}
                            placeholder={t('groups.start')}
                            needConfirm={false}
                          />
                        </Form.Item>
                        <span style={{ lineHeight: '32px' }}>–</span>
                        <Form.Item
                          name={[f.name, 'end']}
                          dependencies={[['windows', f.name, 'start']]}
                          rules={[
                            { required: true, message: t('validation.windowTimes') },
                            ({ getFieldValue }) => ({
                              validator: () => {
                                const row = getFieldValue(['windows', f.name]) as LoginWindowRow | undefined;
                                const p =
                                  row?.start && row.end ? windowRowProblem({ ...row, days: [1] }) : null;
                                return p ? Promise.reject(new Error(t(p))) : Promise.resolve();
                              },
                            }),
                          ]}
                          style={{ marginBottom: 12 }}
                        >
                          <TimePicker
                            format="HH:mm"
                            minuteStep={5}
                            placeholder={t('groups.end')}
                            needConfirm={false}
                          />
                        </Form.Item>
                      </Space>
                    </Col>
                    <Col flex="none">
                      <Button
                        type="text"
                        danger
                        icon={<DeleteOutlined />}
                        onClick={() => remove(f.name)}
                        aria-label={t('delete')}
                      />
                    </Col>
                  </Row>
                </div>
              ))}
              <Button
                type="dashed"
                block
                icon={<PlusOutlined />}
                onClick={() => add({ days: [1, 2, 3, 4, 5], start: null, end: null })}
                data-testid="window-add"
              >
                {t('groups.addWindow')}
              </Button>
            </>
          )}
        </Form.List>
      </Form>
    </Modal>
  );
}
