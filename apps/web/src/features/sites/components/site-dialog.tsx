import { useState } from 'react';
import { Alert, Form, Input, Modal, Select, Switch } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SiteDetailRow } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession } from '../../session';
import { piCandidatesQuery, sitesApi } from '../api/sites-api';
import { orgsPageQuery } from '../../orgs';
import { siteBody, siteDuplicateField, siteFormValues, type SiteFormValues } from '../site-form';
import { LimitedInput } from '../../../components/limited-input';

interface Props {
  site?: SiteDetailRow;
  onClose: () => void;
  onSaved: (s: SiteDetailRow) => void;
}

/** Add a site (organisation picker, site number, name, PI from the team) or edit one. */
export function SiteDialog({ site, onClose, onSaved }: Props) {
  const { t } = useTranslation('sites');
  const mode = site ? 'edit' : 'add';
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [form] = Form.useForm<SiteFormValues>();
  const [orgKeyword, setOrgKeyword] = useState('');
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const orgs = useQuery({
    ...orgsPageQuery({ pageNumber: 1, pageSize: 50, keyword: orgKeyword || undefined }),
    enabled: mode === 'add',
  });
  const pis = useQuery(piCandidatesQuery(env, projectId, true));

  const submit = async (v: SiteFormValues) => {
    setBusy(true);
    setGeneral(null);
    try {
      const body = siteBody(v, mode);
      onSaved(site ? await sitesApi.update({ ...body, id: site.id }) : await sitesApi.add(body));
    } catch (e) {
      if (e instanceof ApiError) {
        const field = siteDuplicateField(e.errorCode, e.detail);
        if (field && (field !== 'orgId' || mode === 'add')) {
          const text =
            e.errorCode === 'DUPLICATE'
              ? t(`duplicate.${field === 'orgId' ? 'orgId' : 'siteNo'}`)
              : t('invalidReference');
          form.setFields([{ name: field, errors: [text] }]);
        } else if (e.detail.length) {
          form.setFields(
            e.detail
              .filter((d) => ['siteNo', 'name', 'orgId', 'piUserId'].includes(d.field))
              .map((d) => ({ name: d.field as keyof SiteFormValues, errors: [d.message] })),
          );
          setGeneral(e.message);
        } else setGeneral(e.message);
      } else setGeneral(String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open
      title={site ? t('edit.title', { no: site.siteNo }) : t('add.title', { env })}
      okText={t('save')}
      onOk={() => form.submit()}
      confirmLoading={busy}
      onCancel={onClose}
      mask={{ closable: false }}
      width={560}
    >
      <div data-testid="site-dialog">
        {general ? (
          <Alert
            type="error"
            showIcon
            title={general}
            style={{ marginBottom: 16 }}
            data-testid="site-error"
          />
        ) : null}
        <Form<SiteFormValues>
          form={form}
          layout="vertical"
          initialValues={siteFormValues(site)}
          onFinish={(v) => void submit(v)}
        >
          {site ? (
            <Form.Item label={t('field.org')}>
              <Input value={site.orgName} disabled />
            </Form.Item>
          ) : (
            <Form.Item
              name="orgId"
              label={t('field.org')}
              rules={[{ required: true, message: t('rule.orgRequired') }]}
            >
              <Select
                showSearch={{
                  filterOption: false,
                  onSearch: (v) => setOrgKeyword(v),
                }}
                placeholder={t('field.orgPlaceholder')}
                loading={orgs.isFetching}
                notFoundContent={orgs.isFetching ? t('loading') : t('noOrg')}
                options={(orgs.data?.content ?? []).map((o) => ({
                  value: o.id,
                  label: o.code ? `${o.name} (${o.code})` : o.name,
                  name: o.name,
                }))}
                onChange={(_v, opt) => {
                  const o = Array.isArray(opt) ? opt[0] : opt;
                  if (o && !form.getFieldValue('name'))
                    form.setFieldValue('name', (o as { name: string }).name);
                }}
                data-testid="site-org"
              />
            </Form.Item>
          )}
          <Form.Item
            name="siteNo"
            label={t('field.siteNo')}
            rules={[
              { required: true, whitespace: true, message: t('rule.siteNoRequired') },
              { max: 20, message: t('rule.max', { max: 20 }) },
            ]}
          >
            <LimitedInput max={20} data-testid="site-no" autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="name"
            label={t('field.name')}
            extra={t('field.nameHelp')}
            rules={[{ max: 100, message: t('rule.max', { max: 100 }) }]}
          >
            <LimitedInput max={100} data-testid="site-name" autoComplete="off" />
          </Form.Item>
          <Form.Item name="piUserId" label={t('field.pi')} extra={t('field.piHelp')}>
            <Select
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              placeholder={t('field.piPlaceholder')}
              loading={pis.isFetching}
              options={(pis.data?.content ?? []).map((m) => ({
                value: m.userId,
                label: `${m.name} (${m.account}) · ${m.roleName}`,
              }))}
              data-testid="site-pi"
            />
          </Form.Item>
          {site ? (
            <Form.Item name="enabled" label={t('field.status')} valuePropName="checked">
              <Switch
                checkedChildren={t('status.1')}
                unCheckedChildren={t('status.0')}
                data-testid="site-enabled"
              />
            </Form.Item>
          ) : null}
        </Form>
      </div>
    </Modal>
  );
}
