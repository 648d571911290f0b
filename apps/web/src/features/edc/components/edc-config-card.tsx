import { Button, Card, Descriptions, Empty, Space, Tag, Typography } from 'antd';
import { ApiOutlined, SettingOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { EdcConfigView } from '@esource/shared';
import { fmtTime } from './sync-bits';
import { TestResult, useTestConnection } from './test-connection';

/** The project environment's EDC at the top of the page, or the empty state that offers to configure one. */
export function EdcConfigCard({
  config,
  canConfig,
  onSettings,
}: {
  config: EdcConfigView | null;
  canConfig: boolean;
  onSettings: () => void;
}) {
  const { t } = useTranslation('edc');
  const test = useTestConnection();
  if (!config) {
    return (
      <Card data-testid="edc-config-card">
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          data-testid="edc-empty"
          description={
            <Space orientation="vertical" size={2}>
              <Typography.Text strong>{t('config.none')}</Typography.Text>
              <Typography.Text type="secondary">
                {canConfig ? t('config.noneHint') : t('config.noneAsk')}
              </Typography.Text>
            </Space>
          }
        >
          {canConfig ? (
            <Button
              type="primary"
              icon={<SettingOutlined />}
              onClick={onSettings}
              data-testid="edc-configure"
            >
              {t('config.configure')}
            </Button>
          ) : null}
        </Empty>
      </Card>
    );
  }
  return (
    <Card
      data-testid="edc-config-card"
      title={
        <Space size={8} wrap>
          <span data-testid="edc-config-name-view">{config.name}</span>
          <Tag color="blue">{t(`kindShort.${config.kind}`)}</Tag>
          {config.enabled ? (
            <Tag color="green">{t('config.on')}</Tag>
          ) : (
            <Tag data-testid="edc-disabled">{t('config.off')}</Tag>
          )}
        </Space>
      }
      extra={
        canConfig ? (
          <Space>
            <Button
              icon={<ApiOutlined />}
              loading={test.busy}
              onClick={() => void test.run()}
              data-testid="edc-test"
            >
              {t('config.test')}
            </Button>
            <Button icon={<SettingOutlined />} onClick={onSettings} data-testid="edc-settings">
              {t('config.settings')}
            </Button>
          </Space>
        ) : null
      }
    >
      <Descriptions
        size="small"
        column={{ xs: 1, md: 2, xxl: 3 }}
        items={[
          { key: 'kind', label: t('config.kind'), children: t(`kind.${config.kind}`) },
          {
            key: 'url',
            label: t(`config.baseUrl.${config.kind === 3 ? 3 : 1}`),
            children: (
              <Typography.Text copyable style={{ overflowWrap: 'anywhere' }}>
                {config.baseUrl}
              </Typography.Text>
            ),
          },
          ...(config.kind === 1
            ? [
                { key: 'study', label: t('config.studyOid'), children: config.studyOid ?? '—' },
                { key: 'env', label: t('config.targetEnv'), children: config.targetEnv ?? '—' },
              ]
            : []),
          {
            key: 'schedule',
            label: t('config.schedule'),
            children: t(`schedule.${config.schedule ?? 'off'}`),
          },
          {
            key: 'secret',
            label: t(`config.secret.${config.kind === 3 ? 3 : 1}`),
            children: config.hasSecret ? t('config.secretSet') : t('config.secretMissing'),
          },
          {
            key: 'items',
            label: t('config.itemsAt'),
            children: config.targetItemsAt ? (
              fmtTime(config.targetItemsAt)
            ) : (
              <Typography.Text type="secondary">{t('config.itemsNever')}</Typography.Text>
            ),
          },
          { key: 'updated', label: t('config.updated'), children: fmtTime(config.updateTime) },
        ]}
      />
      <TestResult result={test.result} error={test.error} />
    </Card>
  );
}
