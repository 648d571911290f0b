import { useEffect, useState } from 'react';
import {
  App,
  Button,
  Card,
  Col,
  Form,
  Input,
  Radio,
  Result,
  Row,
  Skeleton,
  Switch,
  Typography,
} from 'antd';
import { SaveOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { maskSubjectNo, SHARE_LIMITS, SUBJECT_NO_DISPLAY, type MicroCrfSettings } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { usePms, useSession } from '../../session';
import { crfConfigQuery, ddcApi } from '../api/ddc-api';
import { ConfigMeta, ConfigNotices } from '../components/config-meta';
import { DdcHeader } from '../components/ddc-header';
import '../ddc.css';

const EXAMPLE_NO = '01-0012';

/**
 * /project/microCrfConfig without a design version (with one it is the form designer; docs/decisions.md "Shared
 * forms"): what the shared form (the "micro CRF") shows the participant in this project environment — the subject
 * number hidden, masked or in full, the project, site and visit names, a welcome text in each language, the page's
 * first language and whether the participant may switch it. Read with crf:form:query, saved with crf:form:update at
 * the version read.
 */
export default function MicroCrfConfigPage() {
  const { t } = useTranslation('ddc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const project = useSession((s) => s.project);
  const q = useQuery(crfConfigQuery({ env, projectId }));
  const [form] = Form.useForm<MicroCrfSettings>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const canSave = has('crf:form:update');
  const watched = Form.useWatch([], form) as MicroCrfSettings | undefined;

  useEffect(() => {
    if (q.data) form.setFieldsValue(q.data.settings);
  }, [q.data, form]);

  const save = async () => {
    if (!q.data) return;
    const v = await form.validateFields();
    setBusy(true);
    setError(null);
    try {
      const r = await ddcApi.saveCrfConfig({ ...v, version: q.data.version });
      qc.setQueryData(crfConfigQuery({ env, projectId }).queryKey, r);
      void message.success(t('config.saved'));
    } catch (e) {
      if (e instanceof ApiError) setError(e);
      else throw e;
    } finally {
      setBusy(false);
    }
  };

  const s = watched ?? q.data?.settings;
  return (
    <div className="ddc-page" data-testid="micro-crf-config-page">
      <DdcHeader
        title={t('crfConfig.title')}
        backTo="/DDC/share"
        extra={
          canSave ? (
            <Button
              type="primary"
              icon={<SaveOutlined />}
              loading={busy}
              disabled={!q.data}
              onClick={() => void save()}
              data-testid="config-save"
            >
              {t('config.save')}
            </Button>
          ) : null
        }
      />
      <div className="ddc-body">
        {q.isError ? (
          <Result status="warning" title={t('config.loadFailed')} subTitle={q.error.message} />
        ) : !q.data ? (
          <Skeleton active />
        ) : (
          <Row gutter={[16, 16]}>
            <Col xs={24} lg={14}>
              <Card className="ddc-config">
                <Typography.Paragraph type="secondary">{t('crfConfig.intro')}</Typography.Paragraph>
                <ConfigMeta version={q.data.version} by={q.data.updatedByName} at={q.data.updateTime} />
                <ConfigNotices canSave={canSave} error={error} onReload={() => void q.refetch().then(() => setError(null))} />
                <Form form={form} layout="vertical" disabled={!canSave} data-testid="crf-config-form">
                  <Form.Item name="subjectNo" label={t('crfConfig.subjectNo')}>
                    <Radio.Group
                      options={SUBJECT_NO_DISPLAY.map((v) => ({
                        value: v,
                        label: `${t(`crfConfig.subjectNoOption.${v}`)}${v === 'masked' ? ` (${maskSubjectNo(EXAMPLE_NO)})` : v === 'full' ? ` (${EXAMPLE_NO})` : ''}`,
                      }))}
                      data-testid="config-subject-no"
                    />
                  </Form.Item>
                  <Row gutter={16}>
                    <Col xs={24} sm={8}>
                      <Form.Item
                        name="showProjectName"
                        label={t('crfConfig.showProjectName')}
                        valuePropName="checked"
                      >
                        <Switch data-testid="config-show-project" />
                      </Form.Item>
                    </Col>
                    <Col xs={24} sm={8}>
                      <Form.Item
                        name="showSiteName"
                        label={t('crfConfig.showSiteName')}
                        valuePropName="checked"
                      >
                        <Switch data-testid="config-show-site" />
                      </Form.Item>
                    </Col>
                    <Col xs={24} sm={8}>
                      <Form.Item
                        name="showVisitName"
                        label={t('crfConfig.showVisitName')}
                        valuePropName="checked"
                      >
                        <Switch data-testid="config-show-visit" />
                      </Form.Item>
                    </Col>
                  </Row>
                  <Form.Item name="welcomeZh" label={t('crfConfig.welcomeZh')}>
                    <Input.TextArea
                      rows={3}
                      maxLength={SHARE_LIMITS.welcomeMax}
                      showCount
                      data-testid="config-welcome-zh"
                    />
                  </Form.Item>
                  <Form.Item name="welcomeEn" label={t('crfConfig.welcomeEn')}>
                    <Input.TextArea
                      rows={3}
                      maxLength={SHARE_LIMITS.welcomeMax}
                      showCount
                      data-testid="config-welcome-en"
                    />
                  </Form.Item>
                  <Row gutter={16}>
                    <Col xs={24} sm={12}>
                      <Form.Item name="language" label={t('crfConfig.language')}>
                        <Radio.Group
                          options={[
                            { value: 'zh_CN', label: '中文' },
                            { value: 'en_US', label: 'English' },
                          ]}
                          data-testid="config-language"
                        />
                      </Form.Item>
                    </Col>
                    <Col xs={24} sm={12}>
                      <Form.Item
                        name="languageSwitch"
                        label={t('crfConfig.languageSwitch')}
                        valuePropName="checked"
                      >
                        <Switch data-testid="config-language-switch" />
                      </Form.Item>
                    </Col>
                  </Row>
                </Form>
              </Card>
            </Col>
            <Col xs={24} lg={10}>
              <Card title={t('crfConfig.preview')} size="small" data-testid="crf-config-preview">
                {s ? (
                  <div className="ddc-preview">
                    <Typography.Text strong>
                      {s.showProjectName ? (project?.name ?? '') : t('public.brand')}
                    </Typography.Text>
                    <Typography.Title level={5} style={{ margin: '8px 0' }}>
                      {t('crfConfig.previewForm')}
                    </Typography.Title>
                    <Typography.Paragraph type="secondary" style={{ fontSize: 13 }}>
                      {[
                        s.showVisitName ? `${t('public.visit')}: ${t('crfConfig.previewVisit')}` : null,
                        s.subjectNo !== 'hidden'
                          ? `${t('public.subject')}: ${s.subjectNo === 'masked' ? maskSubjectNo(EXAMPLE_NO) : EXAMPLE_NO}`
                          : null,
                        s.showSiteName ? `${t('public.site')}: ${t('crfConfig.previewSite')}` : null,
                      ]
                        .filter(Boolean)
                        .join(' · ') || '—'}
                    </Typography.Paragraph>
                    <Typography.Paragraph className="ddc-public-welcome">
                      {(s.language === 'en_US' ? s.welcomeEn || s.welcomeZh : s.welcomeZh || s.welcomeEn) ||
                        t('public.welcome')}
                    </Typography.Paragraph>
                  </div>
                ) : null}
              </Card>
            </Col>
          </Row>
        )}
      </div>
    </div>
  );
}
