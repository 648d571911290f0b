import { useState } from 'react';
import { Alert, Form, Input, Modal, Radio, Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { MemberRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { candidatesQuery, roleOptionsQuery, teamApi, teamSitesQuery, type RoleOption } from '../api/team-api';
import { memberAssignment, memberFormValues, type MemberFormValues } from '../member-form';
import { LimitedInput, LimitedTextArea } from '../../../components/limited-input';
import { rangesQuery } from '../../system-settings';

export type MemberDialogMode = 'add' | 'invite' | 'edit';

interface Props {
  mode: MemberDialogMode;
  member?: MemberRow;
  onClose: () => void;
  onSaved: (m: MemberRow) => void;
}

const FIELD_OF: Record<string, keyof MemberFormValues> = {
  userId: 'userId',
  account: 'account',
  roleId: 'roleId',
  siteIds: 'siteIds',
};

export function roleLabel(r: Pick<RoleOption, 'name' | 'nameEn' | 'code'>, language: string): string {
  return language === 'en_US' && r.nameEn ? r.nameEn : r.name;
}

/** Add a user, invite an account, or change a member's role and sites. */
export function MemberDialog({ mode, member, onClose, onSaved }: Props) {
  const { t } = useTranslation('team');
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const projectId = useSession((s) => s.project?.id ?? null);
  const scope = { env, projectId };
  const [form] = Form.useForm<MemberFormValues>();
  const [keyword, setKeyword] = useState('');
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const roles = useQuery(roleOptionsQuery(scope));
  const sites = useQuery(teamSitesQuery(scope));
  const candidates = useQuery({
    ...candidatesQuery(scope, keyword),
    enabled: mode === 'add' && projectId !== null,
  });
  const siteScope = Form.useWatch('scope', form);
  // the data ranges as the server names and explains them (/sys/range/listRange); ours until they arrive
  const ranges = useQuery(rangesQuery(language));
  const range = (v: 'all' | 'sites') => ranges.data?.find((r) => r.value === v);

  const submit = async (v: MemberFormValues) => {
    setBusy(true);
    setGeneral(null);
    try {
      const a = memberAssignment(v);
      const saved =
        mode === 'add'
          ? await teamApi.add({ ...a, userId: v.userId! })
          : mode === 'invite'
            ? await teamApi.invite({ ...a, account: (v.account ?? '').trim() })
            : await teamApi.update({ ...a, id: member!.id });
      onSaved(saved);
    } catch (e) {
      if (!(e instanceof ApiError)) {
        setGeneral(String(e));
        return;
      }
      const fields = e.detail
        .map((d) => ({ name: FIELD_OF[d.field], errors: [d.message] }))
        .filter((f): f is { name: keyof MemberFormValues; errors: string[] } => f.name !== undefined);
      if (e.errorCode === 'DUPLICATE')
        fields.push({ name: mode === 'invite' ? 'account' : 'userId', errors: [t('duplicate')] });
      else if (e.errorCode === 'NOT_FOUND' && mode === 'invite')
        fields.push({ name: 'account', errors: [t('noSuchAccount')] });
      else if (e.errorCode === 'DM_ONLY_IN_DEV') fields.push({ name: 'roleId', errors: [e.message] });
      form.setFields(fields);
      if (fields.length === 0) setGeneral(e.message);
    } finally {
      setBusy(false);
    }
  };

  const title =
    mode === 'add'
      ? t('add.title')
      : mode === 'invite'
        ? t('invite.title')
        : t('edit.title', { name: member?.name ?? '' });

  return (
    <Modal
      open
      title={title}
      okText={mode === 'invite' ? t('invite.ok') : t('save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
      width={580}
    >
      <div data-testid="member-dialog">
        {env === 'DEV' ? (
          <Alert
            type="info"
            showIcon
            style={{ marginBottom: 16 }}
            title={t('devOnlyDm')}
            data-testid="dev-dm-note"
          />
        ) : null}
        {general ? (
          <Alert
            type="error"
            showIcon
            title={general}
            style={{ marginBottom: 16 }}
            data-testid="member-error"
          />
        ) : null}
        <Form<MemberFormValues>
          form={form}
          layout="vertical"
          initialValues={memberFormValues(member)}
          onFinish={(v) => void submit(v)}
        >
          {mode === 'add' ? (
            <Form.Item
              name="userId"
              label={t('field.user')}
              rules={[{ required: true, message: t('rule.userRequired') }]}
            >
              <Select
                showSearch={{ filterOption: false, onSearch: (v) => setKeyword(v) }}
                placeholder={t('field.userPlaceholder')}
                loading={candidates.isFetching}
                notFoundContent={t('noCandidates')}
                options={(candidates.data ?? []).map((c) => ({
                  value: c.id,
                  label: `${c.name} (${c.account})${c.orgName ? ` · ${c.orgName}` : ''}`,
                }))}
                data-testid="member-user"
              />
            </Form.Item>
          ) : null}
          {mode === 'invite' ? (
            <Form.Item
              name="account"
              label={t('field.account')}
              extra={t('invite.explain')}
              rules={[
                { required: true, whitespace: true, message: t('rule.accountRequired') },
                { max: 50, message: t('rule.max', { max: 50 }) },
              ]}
            >
              <LimitedInput max={50} data-testid="member-account" autoComplete="off" />
            </Form.Item>
          ) : null}
          {mode === 'edit' && member ? (
            <Form.Item label={t('field.user')}>
              <Input value={`${member.name} (${member.account})`} disabled />
            </Form.Item>
          ) : null}
          <Form.Item
            name="roleId"
            label={t('field.role')}
            rules={[{ required: true, message: t('rule.roleRequired') }]}
          >
            <Select
              placeholder={t('field.rolePlaceholder')}
              loading={roles.isFetching}
              options={(roles.data ?? []).map((r) => ({
                value: r.id,
                label: `${roleLabel(r, language)} (${r.code})`,
              }))}
              data-testid="member-role"
            />
          </Form.Item>
          <Form.Item
            name="scope"
            label={t('field.sites')}
            extra={range(siteScope === 'all' ? 'all' : 'sites')?.description}
          >
            <Radio.Group data-testid="member-scope">
              <Radio value="all" data-testid="scope-all">
                {range('all')?.label ?? t('scope.all')}
              </Radio>
              <Radio value="chosen" data-testid="scope-chosen">
                {range('sites')?.label ?? t('scope.chosen')}
              </Radio>
            </Radio.Group>
          </Form.Item>
          {siteScope !== 'all' ? (
            <Form.Item
              name="siteIds"
              label={t('field.chosenSites')}
              rules={[{ required: true, type: 'array', min: 1, message: t('rule.sitesRequired') }]}
            >
              <Select
                mode="multiple"
                placeholder={t('field.sitesPlaceholder')}
                loading={sites.isFetching}
                notFoundContent={t('noSites', { env })}
                options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
                data-testid="member-sites"
              />
            </Form.Item>
          ) : null}
        </Form>
      </div>
    </Modal>
  );
}

/** Send a message to the chosen members (POST /pro/user/sendMessage). */
export function MessageDialog({
  members,
  onClose,
  onSent,
}: {
  members: MemberRow[];
  onClose: () => void;
  onSent: (n: number) => void;
}) {
  const { t } = useTranslation('team');
  const [form] = Form.useForm<{ title: string; content: string }>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const submit = async (v: { title: string; content: string }) => {
    setBusy(true);
    setGeneral(null);
    try {
      const r = await teamApi.message(
        members.map((m) => m.id),
        v.title,
        v.content ?? '',
      );
      onSent(r.sent);
    } catch (e) {
      setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('message.title', { count: members.length })}
      okText={t('message.ok')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
    >
      <div data-testid="message-dialog">
        <p style={{ color: 'rgba(0,0,0,.55)' }}>{members.map((m) => m.name).join(', ')}</p>
        {general ? <Alert type="error" showIcon title={general} style={{ marginBottom: 16 }} /> : null}
        <Form
          form={form}
          layout="vertical"
          onFinish={(v) => void submit(v)}
          initialValues={{ title: '', content: '' }}
        >
          <Form.Item
            name="title"
            label={t('message.subject')}
            rules={[
              { required: true, whitespace: true, message: t('rule.subjectRequired') },
              { max: 200, message: t('rule.max', { max: 200 }) },
            ]}
          >
            <LimitedInput max={200} data-testid="message-title" />
          </Form.Item>
          <Form.Item
            name="content"
            label={t('message.content')}
            rules={[{ max: 5000, message: t('rule.max', { max: 5000 }) }]}
          >
            <LimitedTextArea max={5000} rows={5} data-testid="message-content" />
          </Form.Item>
        </Form>
      </div>
    </Modal>
  );
}
