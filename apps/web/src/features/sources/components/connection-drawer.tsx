import { useState } from 'react';
import {
  Alert,
  App,
  Button,
  Checkbox,
  Col,
  Divider,
  Drawer,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Space,
  Switch,
  Typography,
} from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  CONNECTION_KINDS,
  FHIR_AUTH_KINDS,
  FHIR_SEARCH_TYPES,
  IDENTIFIER_TYPES,
  SMART_ALGORITHMS,
  SOURCE_DOC_TYPES,
  SOURCE_IDENTIFIER_TYPES,
  SQL_COLUMN_ROLES,
  SQL_DIALECTS,
  type ConnectionKind,
  type ConnectionView,
  type SiteDetailRow,
} from '@esource/shared';
import { LimitedInput, LimitedTextArea, maxRule } from '../../../components/limited-input';
import { ApiError } from '../../../lib/api-client';
import { serverFieldErrors, validFields } from '../../../lib/validate-form';
import { afterSourceChange, sourcesApi } from '../api/sources-api';
import {
  defaultConfig,
  formToSave,
  secretKind,
  viewToForm,
  type ConnectionFormValues,
} from '../source-logic';

/** The contract's URL check: http(s), no user or password in it. */
export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}
const httpUrlRule = (message: string) => ({
  validator: (_: unknown, v: unknown) =>
    typeof v !== 'string' || v.trim() === '' || isHttpUrl(v) ? Promise.resolve() : Promise.reject(new Error(message)),
});

/** An API error's field path ('config.queries.0.sql') as an antd name path. */
const namePath = (field: string) => field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));

/**
 * Add / edit / view a hospital connection: the kind's form (FHIR REST with auth none / bearer / SMART Backend
 * Services, FHIR files, HL7 v2 routing keys, SQL views with a query per document type and its column mapping).
 * Secrets are write-only: when one is stored the field says so and stays empty (empty = keep it).
 */
export function ConnectionDrawer({
  connection,
  sites,
  readOnly,
  onClose,
  onSaved,
}: {
  /** null: a new connection */
  connection: ConnectionView | null;
  sites: SiteDetailRow[];
  readOnly: boolean;
  onClose: () => void;
  onSaved: (c: ConnectionView) => void;
}) {
  const { t } = useTranslation('sources');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const [form] = Form.useForm<ConnectionFormValues>();
  const [busy, setBusy] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);
  const initial: ConnectionFormValues = connection
    ? viewToForm(connection)
    : {
        kind: 'fhir',
        enabled: true,
        config: defaultConfig('fhir'),
        ...(sites.length === 1 ? { siteId: sites[0]!.id } : {}),
      };
  const kind = Form.useWatch('kind', form) ?? initial.kind;
  const auth = Form.useWatch(['config', 'auth'], form) as string | undefined;
  const secret = secretKind(kind, auth ?? initial.config.auth);
  const hasSecret = Boolean(connection?.hasSecret);

  const submit = async () => {
    const v = await validFields(form);
    if (!v) return;
    setBusy(true);
    setGeneral(null);
    try {
      const saved = await sourcesApi.saveConnection(formToSave({ ...initial, ...v, config: v.config ?? {} }, connection));
      void message.success(t(connection ? 'conn.updated' : 'conn.added', { name: saved.name }));
      await afterSourceChange(qc);
      onSaved(saved);
    } catch (e) {
      if (e instanceof ApiError && e.detail.length) {
        form.setFields(serverFieldErrors(e, (f) => namePath(f) as never));
        setGeneral(e.message);
      } else setGeneral(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const secretPlaceholder = hasSecret ? t('conn.secretSet') : undefined;
  return (
    <Drawer
      open
      size={720}
      onClose={onClose}
      destroyOnHidden
      title={
        connection
          ? t(readOnly ? 'conn.viewTitle' : 'conn.editTitle', { name: connection.name })
          : t('conn.addTitle')
      }
      data-testid="connection-drawer"
      extra={
        readOnly ? null : (
          <Space>
            <Button onClick={onClose}>{t('cancel')}</Button>
            <Button type="primary" loading={busy} onClick={() => void submit()} data-testid="connection-save">
              {t('save')}
            </Button>
          </Space>
        )
      }
    >
      {general ? <Alert type="error" showIcon title={general} style={{ marginBottom: 12 }} data-testid="connection-error" /> : null}
      <Form<ConnectionFormValues>
        form={form}
        layout="vertical"
        initialValues={initial}
        disabled={readOnly}
        onValuesChange={(changed: Partial<ConnectionFormValues>) => {
          // a new kind starts from that kind's defaults
          if (changed.kind && !connection) form.setFieldsValue({ config: defaultConfig(changed.kind), secret: undefined });
        }}
      >
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item name="siteId" label={t('col.site')} rules={[{ required: true, message: t('conn.siteRequired') }]}>
              <Select
                disabled={readOnly || Boolean(connection)}
                options={sites.map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
                data-testid="connection-site"
              />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="kind" label={t('conn.kind')} rules={[{ required: true }]}>
              <Select<ConnectionKind>
                disabled={readOnly || Boolean(connection)}
                options={CONNECTION_KINDS.map((k) => ({ value: k, label: t(`kind.${k}`) }))}
                data-testid="connection-kind"
              />
            </Form.Item>
          </Col>
          <Col span={18}>
            <Form.Item
              name="name"
              label={t('conn.name')}
              rules={[{ required: true, whitespace: true, message: t('conn.nameRequired') }, maxRule(100)]}
            >
              <LimitedInput max={100} data-testid="connection-name" />
            </Form.Item>
          </Col>
          <Col span={6}>
            <Form.Item name="enabled" label={t('conn.enabled')} valuePropName="checked">
              <Switch data-testid="connection-enabled" />
            </Form.Item>
          </Col>
        </Row>
        <Divider titlePlacement="start" plain>
          {t(`kind.${kind}`)}
        </Divider>
        {kind === 'fhir' ? <FhirFields /> : null}
        {kind === 'fhir_file' ? <FhirFileFields /> : null}
        {kind === 'hl7v2' ? <Hl7Fields /> : null}
        {kind === 'sql' ? <SqlFields /> : null}
        {secret ? (
          <>
            <Form.Item
              name="secret"
              label={t(`conn.secret.${secret}`)}
              extra={hasSecret ? t('conn.secretKeep') : t('conn.secretHint')}
              rules={hasSecret ? [] : [{ required: true, message: t('conn.secretRequired') }]}
            >
              {secret === 'privateKey' ? (
                <Input.TextArea
                  rows={6}
                  placeholder={secretPlaceholder ?? '-----BEGIN PRIVATE KEY-----'}
                  autoComplete="off"
                  spellCheck={false}
                  style={{ fontFamily: 'monospace', fontSize: 12 }}
                  data-testid="connection-secret"
                />
              ) : (
                <Input.Password
                  placeholder={secretPlaceholder}
                  autoComplete="new-password"
                  visibilityToggle={false}
                  data-testid="connection-secret"
                />
              )}
            </Form.Item>
            {hasSecret && !readOnly ? (
              <Form.Item name="clearSecret" valuePropName="checked">
                <Checkbox>{t('conn.clearSecret')}</Checkbox>
              </Form.Item>
            ) : null}
          </>
        ) : null}
      </Form>
    </Drawer>
  );
}

function IdentifierSystems() {
  const { t } = useTranslation('sources');
  return (
    <Form.Item label={t('conn.identifierSystems')} extra={t('conn.identifierSystemsHint')}>
      <Form.List name={['config', 'identifierSystems']}>
        {(fields, { add, remove }, { errors }) => (
          <>
            {fields.map((f) => (
              <Row key={f.key} gutter={8} align="top" data-testid="identifier-system-row">
                <Col flex="auto">
                  <Form.Item name={[f.name, 'system']} rules={[{ required: true, message: t('conn.systemRequired') }, maxRule(300)]}>
                    <Input placeholder="urn:oid:… / http://hospital.example/mrn" data-testid="identifier-system" />
                  </Form.Item>
                </Col>
                <Col flex="180px">
                  <Form.Item name={[f.name, 'type']} rules={[{ required: true, message: t('conn.typeRequired') }]}>
                    <Select
                      options={SOURCE_IDENTIFIER_TYPES.map((k) => ({ value: k, label: t(`idType.${k}`) }))}
                      data-testid="identifier-type"
                    />
                  </Form.Item>
                </Col>
                <Col flex="32px">
                  <Button icon={<DeleteOutlined />} type="text" onClick={() => remove(f.name)} aria-label={t('remove')} />
                </Col>
              </Row>
            ))}
            <Button
              type="dashed"
              icon={<PlusOutlined />}
              onClick={() => add({ type: 'medicalRecordId' })}
              disabled={fields.length >= 20}
              data-testid="identifier-system-add"
            >
              {t('conn.addSystem')}
            </Button>
            <Form.ErrorList errors={errors} />
          </>
        )}
      </Form.List>
    </Form.Item>
  );
}

function FhirFields() {
  const { t } = useTranslation('sources');
  const auth = Form.useWatch(['config', 'auth']) as string | undefined;
  return (
    <>
      <Form.Item
        name={['config', 'baseUrl']}
        label={t('conn.baseUrl')}
        rules={[{ required: true, message: t('conn.baseUrlRequired') }, httpUrlRule(t('conn.urlInvalid')), maxRule(500)]}
      >
        <Input placeholder="https://fhir.hospital.example/r4" data-testid="connection-base-url" />
      </Form.Item>
      <Form.Item name={['config', 'auth']} label={t('conn.auth')}>
        <Select
          options={FHIR_AUTH_KINDS.map((k) => ({ value: k, label: t(`auth.${k}`) }))}
          data-testid="connection-auth"
        />
      </Form.Item>
      {auth === 'smart' ? (
        <Row gutter={16}>
          <Col span={24}>
            <Form.Item
              name={['config', 'tokenUrl']}
              label={t('conn.tokenUrl')}
              rules={[{ required: true, message: t('conn.tokenUrlRequired') }, httpUrlRule(t('conn.urlInvalid'))]}
            >
              <Input placeholder="https://auth.hospital.example/token" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name={['config', 'clientId']} label={t('conn.clientId')} rules={[{ required: true, message: t('conn.clientIdRequired') }, maxRule(200)]}>
              <Input />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name={['config', 'keyId']} label={t('conn.keyId')} rules={[maxRule(200)]}>
              <Input />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name={['config', 'scope']} label={t('conn.scope')} rules={[maxRule(500)]}>
              <Input placeholder="system/*.read" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name={['config', 'algorithm']} label={t('conn.algorithm')} rules={[{ required: true, message: t('conn.algorithmRequired') }]}>
              <Select options={SMART_ALGORITHMS.map((a) => ({ value: a, label: a }))} />
            </Form.Item>
          </Col>
        </Row>
      ) : null}
      <Form.Item name={['config', 'resourceTypes']} label={t('conn.resourceTypes')} rules={[{ required: true, message: t('conn.resourceTypesRequired') }]}>
        <Checkbox.Group options={FHIR_SEARCH_TYPES.map((r) => ({ value: r, label: r }))} />
      </Form.Item>
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item name={['config', 'timeoutMs']} label={t('conn.timeout')}>
            <InputNumber min={1000} max={300_000} step={1000} style={{ width: '100%' }} suffix="ms" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name={['config', 'pageLimit']} label={t('conn.pageLimit')} tooltip={t('conn.pageLimitHint')}>
            <InputNumber min={1} max={10_000} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name={['config', 'pageSize']} label={t('conn.pageSize')}>
            <InputNumber min={1} max={1000} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
      </Row>
      <IdentifierSystems />
    </>
  );
}

function FhirFileFields() {
  const { t } = useTranslation('sources');
  return (
    <>
      <Alert type="info" showIcon title={t('conn.fileHint')} style={{ marginBottom: 16 }} />
      <Form.Item name={['config', 'dropFolder']} label={t('conn.dropFolder')} extra={t('conn.dropFolderHint')} rules={[maxRule(500)]}>
        <Input placeholder="/data/fhir-drop/site-a" />
      </Form.Item>
      <IdentifierSystems />
    </>
  );
}

function Hl7Fields() {
  const { t } = useTranslation('sources');
  return (
    <>
      <Typography.Paragraph type="secondary">{t('conn.hl7Hint')}</Typography.Paragraph>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name={['config', 'sendingApp']} label={t('conn.sendingApp')} rules={[{ required: true, message: t('conn.required') }, maxRule(200)]}>
            <Input placeholder="LIS" data-testid="connection-sending-app" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name={['config', 'sendingFacility']} label={t('conn.sendingFacility')} rules={[{ required: true, message: t('conn.required') }, maxRule(200)]}>
            <Input placeholder="DCH" data-testid="connection-sending-facility" />
          </Form.Item>
        </Col>
      </Row>
      <IdentifierSystems />
    </>
  );
}

function SqlFields() {
  const { t } = useTranslation('sources');
  return (
    <>
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item name={['config', 'dialect']} label={t('conn.dialect')} rules={[{ required: true }]}>
            <Select options={SQL_DIALECTS.map((d) => ({ value: d, label: t(`dialect.${d}`) }))} />
          </Form.Item>
        </Col>
        <Col span={10}>
          <Form.Item name={['config', 'host']} label={t('conn.host')} rules={[{ required: true, message: t('conn.required') }, maxRule(200)]}>
            <Input placeholder="db.hospital.local" />
          </Form.Item>
        </Col>
        <Col span={6}>
          <Form.Item name={['config', 'port']} label={t('conn.port')} rules={[{ required: true, message: t('conn.required') }]}>
            <InputNumber min={1} max={65535} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name={['config', 'database']} label={t('conn.database')} rules={[{ required: true, message: t('conn.required') }, maxRule(100)]}>
            <Input />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name={['config', 'user']} label={t('conn.user')} rules={[{ required: true, message: t('conn.required') }, maxRule(100)]}>
            <Input autoComplete="off" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name={['config', 'timeoutMs']} label={t('conn.timeout')}>
            <InputNumber min={1000} max={300_000} step={1000} style={{ width: '100%' }} suffix="ms" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name={['config', 'patientIdentifier']} label={t('conn.patientIdentifier')} tooltip={t('conn.patientIdentifierHint')}>
            <Select options={IDENTIFIER_TYPES.map((k) => ({ value: k, label: t(`idType.${k}`) }))} />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name={['config', 'ssl']} label={t('conn.ssl')} valuePropName="checked">
            <Switch />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item label={t('conn.queries')} extra={t('conn.queriesHint')} required>
        <Form.List name={['config', 'queries']}>
          {(fields, { add, remove }) => (
            <Space orientation="vertical" style={{ width: '100%' }} size={12}>
              {fields.map((f, i) => (
                <div key={f.key} className="sql-query" data-testid={`sql-query-${i}`}>
                  <Row gutter={8}>
                    <Col span={10}>
                      <Form.Item name={[f.name, 'docType']} label={t('col.docType')} rules={[{ required: true, message: t('conn.required') }]}>
                        <Select options={SOURCE_DOC_TYPES.map((k, n) => ({ value: n + 1, label: t(`docType.${k}`) }))} />
                      </Form.Item>
                    </Col>
                    <Col span={12}>
                      <Form.Item
                        name={[f.name, 'name']}
                        label={t('conn.queryName')}
                        rules={[
                          { required: true, message: t('conn.required') },
                          { pattern: /^[A-Za-z0-9_-]+$/, message: t('conn.queryNameRule') },
                          maxRule(40),
                        ]}
                      >
                        <Input placeholder="labs" />
                      </Form.Item>
                    </Col>
                    <Col span={2} style={{ paddingTop: 30 }}>
                      <Button icon={<DeleteOutlined />} type="text" disabled={fields.length <= 1} onClick={() => remove(f.name)} aria-label={t('remove')} />
                    </Col>
                  </Row>
                  <Form.Item
                    name={[f.name, 'sql']}
                    label={t('conn.sql')}
                    extra={t('conn.sqlHint')}
                    rules={[{ required: true, message: t('conn.required') }, maxRule(10_000)]}
                  >
                    <LimitedTextArea
                      max={10_000}
                      rows={4}
                      spellCheck={false}
                      style={{ fontFamily: 'monospace', fontSize: 12 }}
                      placeholder="SELECT * FROM lab_results WHERE mrn = :patientId AND result_time BETWEEN :from AND :to"
                    />
                  </Form.Item>
                  <Typography.Text type="secondary">{t('conn.columns')}</Typography.Text>
                  <Row gutter={8} style={{ marginTop: 4 }}>
                    {SQL_COLUMN_ROLES.map((role) => (
                      <Col span={6} key={role}>
                        <Form.Item
                          name={[f.name, 'columns', role]}
                          label={t(`column.${role}`)}
                          rules={[
                            ...(role === 'patientKey' || role === 'externalKey' ? [{ required: true, message: t('conn.required') }] : []),
                            maxRule(100),
                          ]}
                        >
                          <Input placeholder={role === 'value' ? 'result' : undefined} />
                        </Form.Item>
                      </Col>
                    ))}
                  </Row>
                </div>
              ))}
              <Button
                type="dashed"
                icon={<PlusOutlined />}
                disabled={fields.length >= 40}
                onClick={() => add({ docType: 3, name: `query${fields.length + 1}`, sql: '', columns: {} })}
              >
                {t('conn.addQuery')}
              </Button>
            </Space>
          )}
        </Form.List>
      </Form.Item>
    </>
  );
}
