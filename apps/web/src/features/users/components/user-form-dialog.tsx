import { useEffect } from 'react';
import { Checkbox, Col, Form, Modal, Row, Select, Skeleton } from 'antd';
import type { Rule } from 'antd/es/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS, LOGIN_TYPES, type UserAddResponse } from '@esource/shared';
import { serverFieldErrors } from '../../../lib/validate-form';
import {
  deptOptionsQuery,
  groupOptionsQuery,
  systemRoleOptionsQuery,
  userDetailQuery,
  usersApi,
  type UserInput,
} from '../api/users-api';
import { userFieldProblem } from '../lib/user-rules';
import { usePms } from '../../session';
import { rangeOrgsQuery } from '../../system-settings';
import { LimitedInput, maxRule } from '../../../components/limited-input';

interface FormValues {
  account?: string;
  name: string;
  phone: string;
  mail?: string;
  idNumber?: string;
  orgId?: number;
  deptId?: number;
  loginTypes: number[];
  systemRoleId?: number;
  permissionGroupId?: number;
}

const FIELDS = new Set([
  'account',
  'name',
  'phone',
  'mail',
  'idNumber',
  'orgId',
  'deptId',
  'loginTypes',
  'systemRoleId',
  'permissionGroupId',
]);

/**
 * Add or edit a user (spec §5: account ≤ 50, phone, mail and ID-number formats). The account cannot change
 * once created. After an add, `onAdded` receives the generated initial password, shown once.
 */
export function UserFormDialog({
  open,
  userId,
  onClose,
  onAdded,
}: {
  open: boolean;
  /** null: add */
  userId: number | null;
  onClose: () => void;
  onAdded: (r: UserAddResponse) => void;
}) {
  const { t, i18n } = useTranslation('users');
  const [form] = Form.useForm<FormValues>();
  const has = usePms();
  const qc = useQueryClient();
  const editing = userId !== null;
  const detail = useQuery({ ...userDetailQuery(userId), enabled: open && editing });
  // enabled organisations (/sys/range/listOrg: what managing users allows, every one of them, not a page)
  const orgs = useQuery({ ...rangeOrgsQuery(), enabled: open });
  const orgId = Form.useWatch('orgId', form);
  const depts = useQuery({ ...deptOptionsQuery(orgId), enabled: open && orgId !== undefined });
  const roles = useQuery({ ...systemRoleOptionsQuery(open && has('system:role:query')) });
  const groups = useQuery({ ...groupOptionsQuery(open && has('system:permission-group:query')) });
  const en = i18n.language === 'en_US';

  useEffect(() => {
    if (!open) return;
    if (!editing) {
      form.resetFields();
      form.setFieldsValue({ loginTypes: [1] });
    } else if (detail.data) {
      const d = detail.data;
      form.setFieldsValue({
        account: d.account,
        name: d.name,
        phone: d.phone ?? '',
        mail: d.mail ?? undefined,
        idNumber: d.idNumber ?? undefined,
        orgId: d.orgId ?? undefined,
        deptId: d.deptId ?? undefined,
        loginTypes: d.loginTypes,
        systemRoleId: d.systemRoleId ?? undefined,
        permissionGroupId: d.permissionGroupId ?? undefined,
      });
    }
  }, [open, editing, detail.data, form]);

  const save = useMutation({
    mutationFn: async (v: FormValues) => {
      const input: UserInput = {
        name: v.name,
        phone: v.phone,
        mail: v.mail || undefined,
        idNumber: v.idNumber ? v.idNumber.toUpperCase() : undefined,
        orgId: v.orgId!,
        deptId: v.deptId,
        loginTypes: v.loginTypes,
        systemRoleId: v.systemRoleId,
        permissionGroupId: v.permissionGroupId,
      };
      if (editing) {
        await usersApi.update({ ...input, id: userId, updateTime: detail.data?.updateTime });
        return null;
      }
      return usersApi.add({ ...input, account: v.account });
    },
    onSuccess: (added) => {
      void qc.invalidateQueries({ queryKey: ['users'] });
      onClose();
      if (added) onAdded(added);
    },
    onError: (err) => {
      // the server's translated message already shows as a notification; also mark the fields it names
      form.setFields(serverFieldErrors(err, (f) => (FIELDS.has(f) ? (f as keyof FormValues) : null)));
    },
  });

  const check =
    (key: keyof typeof userFieldProblem): Rule =>
    () => ({
      validator: (_: unknown, v: string | undefined) => {
        const p = userFieldProblem[key](v);
        return p ? Promise.reject(new Error(t(p))) : Promise.resolve();
      },
    });

  const selectedRole = roles.data?.content.find((r) => r.id === detail.data?.systemRoleId);
  const roleOptions = (roles.data?.content ?? []).map((r) => ({
    value: r.id,
    label: `${en && r.nameEn ? r.nameEn : r.name} (${r.code})`,
  }));
  if (detail.data?.systemRoleId && !selectedRole && editing)
    roleOptions.push({ value: detail.data.systemRoleId, label: detail.data.systemRoleName ?? '' });
  const groupOptions = (groups.data ?? []).map((g) => ({ value: g.id, label: g.name }));
  if (detail.data?.permissionGroupId && !groups.data?.some((g) => g.id === detail.data?.permissionGroupId))
    groupOptions.push({ value: detail.data.permissionGroupId, label: detail.data.permissionGroupName ?? '' });

  return (
    <Modal
      open={open}
      title={editing ? t('editTitle') : t('addTitle')}
      width={760}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('save')}
      confirmLoading={save.isPending}
      destroyOnHidden
    >
      {editing && detail.isPending ? (
        <Skeleton active />
      ) : (
        <Form
          form={form}
          layout="vertical"
          requiredMark
          onFinish={(v) => save.mutate(v)}
          data-testid="user-form"
          scrollToFirstError
        >
          <Row gutter={16}>
            <Col span={12}>
              <Form.Item
                name="account"
                label={t('fields.account')}
                // one rule: check('account') says "please enter the account" for an empty field itself; a
                // separate required rule made an empty form show that message twice
                required={!editing}
                rules={editing ? [] : [check('account')]}
                extra={editing ? t('accountFixed') : t('accountHint', { max: LIMITS.accountMax })}
              >
                <LimitedInput
                  max={LIMITS.accountMax}
                  disabled={editing}
                  autoComplete="off"
                  data-testid="user-account"
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="name"
                label={t('fields.name')}
                rules={[
                  { required: true, whitespace: true, message: t('validation.nameRequired') },
                  maxRule(50),
                ]}
              >
                <LimitedInput max={50} data-testid="user-name" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="phone"
                label={t('fields.phone')}
                required
                rules={[check('phone')]}
                validateTrigger="onBlur"
              >
                <LimitedInput max={11} data-testid="user-phone" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="mail"
                label={t('fields.mail')}
                rules={[check('mail'), maxRule(100)]}
                validateTrigger="onBlur"
              >
                <LimitedInput max={100} data-testid="user-mail" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="idNumber"
                label={t('fields.idNumber')}
                rules={[check('idNumber')]}
                validateTrigger="onBlur"
              >
                <LimitedInput max={18} data-testid="user-id-number" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="loginTypes"
                label={t('fields.loginTypes')}
                rules={[
                  { required: true, type: 'array', min: 1, message: t('validation.loginTypesRequired') },
                ]}
              >
                <Checkbox.Group
                  options={LOGIN_TYPES.map((lt) => ({ value: lt, label: t(`loginType.${lt}`) }))}
                  data-testid="user-login-types"
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item
                name="orgId"
                label={t('fields.org')}
                rules={[{ required: true, message: t('validation.orgRequired') }]}
              >
                <Select
                  showSearch={{ optionFilterProp: 'label' }}
                  loading={orgs.isPending}
                  options={[
                    ...(orgs.data ?? []).map((o) => ({ value: o.id, label: o.name })),
                    // the user's own organisation when it has been disabled since: shown, not offered to others
                    ...(detail.data?.orgId != null &&
                    orgs.data &&
                    !orgs.data.some((o) => o.id === detail.data?.orgId)
                      ? [
                          {
                            value: detail.data.orgId,
                            label: detail.data.orgName ?? String(detail.data.orgId),
                            disabled: true,
                          },
                        ]
                      : []),
                  ]}
                  onChange={() => form.setFieldValue('deptId', undefined)}
                  placeholder={t('choose')}
                  data-testid="user-org"
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="deptId" label={t('fields.dept')}>
                <Select
                  allowClear
                  disabled={orgId === undefined}
                  loading={depts.isFetching}
                  options={(depts.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
                  placeholder={orgId === undefined ? t('chooseOrgFirst') : t('choose')}
                  notFoundContent={t('noDepts')}
                  data-testid="user-dept"
                />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="systemRoleId" label={t('fields.systemRole')}>
                <Select allowClear options={roleOptions} placeholder={t('none')} data-testid="user-role" />
              </Form.Item>
            </Col>
            <Col span={12}>
              <Form.Item name="permissionGroupId" label={t('fields.permissionGroup')}>
                <Select allowClear options={groupOptions} placeholder={t('none')} data-testid="user-group" />
              </Form.Item>
            </Col>
          </Row>
        </Form>
      )}
    </Modal>
  );
}
