import { useEffect, useMemo, useState } from 'react';
import { Checkbox, Col, Form, Modal, Radio, Row, Space, Tree, Typography } from 'antd';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS, type RoleRow } from '@esource/shared';
import { rolesApi, type RoleInput } from '../api/roles-api';
import {
  allLeaves,
  buildPermissionTree,
  checkedToPermissions,
  permissionsToChecked,
} from '../lib/permission-tree';
import { usePermissionLabel } from '../lib/use-permission-label';
import { LimitedInput, LimitedTextArea } from '../../../components/limited-input';

interface FormValues {
  code: string;
  name: string;
  nameEn?: string;
  description?: string;
  kind: 'system' | 'project';
  flags: ('isDm' | 'envDev' | 'envUat' | 'envPro')[];
}

/** Add or edit a role (spec §5: name ≤ 10, id ≤ 20): flags and its permissions, picked from the catalogue tree. */
export function RoleFormDialog({
  open,
  role,
  onClose,
}: {
  open: boolean;
  role: RoleRow | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('roles');
  const [form] = Form.useForm<FormValues>();
  const qc = useQueryClient();
  const label = usePermissionLabel();
  const treeData = useMemo(() => buildPermissionTree(label), [label]);
  const [checked, setChecked] = useState<string[]>([]);
  const [expanded, setExpanded] = useState<string[]>([]);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (role) {
      form.setFieldsValue({
        code: role.code,
        name: role.name,
        nameEn: role.nameEn ?? undefined,
        description: role.description ?? undefined,
        kind: role.kind === 'system' ? 'system' : 'project',
        flags: (['isDm', 'envDev', 'envUat', 'envPro'] as const).filter((f) => role[f]),
      });
      setChecked(permissionsToChecked(role.permissions));
      setExpanded([...new Set(role.permissions.map((p) => p.split(':')[0]!))]);
    } else {
      form.setFieldsValue({ kind: 'project', flags: ['envUat', 'envPro'] });
      setChecked([]);
      setExpanded([]);
    }
  }, [open, role, form]);

  const save = useMutation({
    mutationFn: (v: FormValues) => {
      const input: RoleInput = {
        code: v.code,
        name: v.name,
        nameEn: v.nameEn || undefined,
        description: v.description || undefined,
        kind: v.kind,
        isDm: v.flags.includes('isDm'),
        envDev: v.flags.includes('envDev'),
        envUat: v.flags.includes('envUat'),
        envPro: v.flags.includes('envPro'),
        permissions: checkedToPermissions(checked),
      };
      return role ? rolesApi.update({ ...input, id: role.id }) : rolesApi.add(input);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['roles'] });
      void qc.invalidateQueries({ queryKey: ['users', 'systemRoles'] });
      onClose();
    },
  });

  const total = allLeaves().length;
  const count = checkedToPermissions(checked).length;

  return (
    <Modal
      open={open}
      title={role ? t('editTitle') : t('addTitle')}
      width={880}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('save')}
      confirmLoading={save.isPending}
    >
      <Form form={form} layout="vertical" onFinish={(v) => save.mutate(v)} data-testid="role-form">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="name"
              label={t('fields.name')}
              rules={[
                { required: true, whitespace: true, message: t('validation.nameRequired') },
                { max: LIMITS.roleNameMax, message: t('validation.nameMax', { max: LIMITS.roleNameMax }) },
              ]}
            >
              <LimitedInput max={LIMITS.roleNameMax} data-testid="role-name" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              name="code"
              label={t('fields.code')}
              rules={[
                { required: true, whitespace: true, message: t('validation.codeRequired') },
                { max: LIMITS.roleIdMax, message: t('validation.codeMax', { max: LIMITS.roleIdMax }) },
                { pattern: /^[A-Za-z0-9_-]+$/, message: t('validation.codeChars') },
              ]}
            >
              <LimitedInput max={LIMITS.roleIdMax} data-testid="role-code" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="nameEn" label={t('fields.nameEn')} rules={[{ max: 50 }]}>
              <LimitedInput max={50} />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="kind" label={t('fields.kind')}>
              <Radio.Group
                options={[
                  { value: 'project', label: t('kind.project') },
                  { value: 'system', label: t('kind.system') },
                ]}
              />
            </Form.Item>
          </Col>
          <Col span={24}>
            <Form.Item name="description" label={t('fields.description')} rules={[{ max: 200 }]}>
              <LimitedTextArea max={200} rows={2} />
            </Form.Item>
          </Col>
          <Col span={24}>
            <Form.Item name="flags" label={t('fields.flags')} extra={t('flagsHint')}>
              <Checkbox.Group
                options={[
                  { value: 'isDm', label: t('flags.isDm') },
                  { value: 'envDev', label: t('flags.envDev') },
                  { value: 'envUat', label: t('flags.envUat') },
                  { value: 'envPro', label: t('flags.envPro') },
                ]}
                data-testid="role-flags"
              />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          label={
            <Space>
              {t('fields.permissions')}
              <Typography.Text type="secondary">{t('permissionCount', { count, total })}</Typography.Text>
            </Space>
          }
        >
          <div
            style={{
              border: '1px solid #d9d9d9',
              borderRadius: 6,
              padding: 8,
              maxHeight: 360,
              overflow: 'auto',
            }}
            data-testid="permission-tree"
          >
            <Tree
              checkable
              selectable={false}
              treeData={treeData}
              checkedKeys={checked}
              expandedKeys={expanded}
              onExpand={(keys) => setExpanded(keys.map(String))}
              onCheck={(keys) => {
                const list = Array.isArray(keys) ? keys : keys.checked;
                setChecked(list.map(String));
              }}
            />
          </div>
        </Form.Item>
      </Form>
    </Modal>
  );
}
