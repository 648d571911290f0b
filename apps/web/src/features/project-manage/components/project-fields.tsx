import { useState } from 'react';
import { App, Button, Descriptions, Popconfirm, Space, Tag, Tooltip, Typography } from 'antd';
import { SyncOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import { FIVE_FUNCTION_KEYS, fiveFunctionsOf, type ProjectDetail } from '@esource/shared';
import { projectManageApi } from '../api/project-manage-api';

/** The link that enters the project by its uuid (spec §2 guard: a /project path with ?uuid=). */
export function entryLink(uuid: string, origin: string = window.location.origin): string {
  return `${origin}/project/ProjectManage?uuid=${encodeURIComponent(uuid)}`;
}

/**
 * The open project's fields (spec §3) and what each switches (docs/decisions.md "Project fields"): the scene, the
 * five functions, upload confirmation, automatic pre-fill, and the entry link by uuid with its renewal.
 */
export function ProjectFields({
  project,
  canUpdate,
  onChanged,
}: {
  project: ProjectDetail;
  canUpdate: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const { t } = useTranslation('projectManage');
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const on = fiveFunctionsOf(project.configFiveFunction);
  const link = entryLink(project.uuidNo);

  const renew = async () => {
    setBusy(true);
    try {
      await projectManageApi.resetUuid({ id: project.id, version: project.version });
      void message.success(t('uuid.done'));
      await onChanged();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }} data-testid="project-fields">
      <Descriptions.Item label={t('field.scene')}>
        <Tooltip title={t(`sceneHelp.${project.scene}`)}>
          <Tag color={project.scene === 2 ? 'geekblue' : 'cyan'} data-testid="project-scene-value">
            {t(`scene.${project.scene}`)}
          </Tag>
        </Tooltip>
      </Descriptions.Item>
      <Descriptions.Item label={t('field.fileConfirmConfig')}>
        <span data-testid="project-file-confirm-value">{project.fileConfirmConfig ? t('yes') : t('no')}</span>
      </Descriptions.Item>
      <Descriptions.Item label={t('field.autoPrefillDisabled')}>
        {project.autoPrefillDisabled ? t('yes') : t('no')}
      </Descriptions.Item>
      <Descriptions.Item label={t('field.configFiveFunction')} span={{ xs: 1, md: 2, xl: 3 }}>
        <Space size={[4, 4]} wrap data-testid="project-functions">
          {FIVE_FUNCTION_KEYS.map((k) => (
            <Tag
              key={k}
              color={on[k] ? 'green' : 'default'}
              // a long name wraps inside the card on a phone instead of running out of it
              style={{
                whiteSpace: 'normal',
                maxWidth: '100%',
                ...(on[k] ? {} : { textDecoration: 'line-through', opacity: 0.7 }),
              }}
              data-testid={`project-function-${k}`}
              data-on={on[k] ? 'true' : 'false'}
            >
              {t(`fn.${k}`)}
              {on[k] ? '' : ` · ${t('off')}`}
            </Tag>
          ))}
        </Space>
      </Descriptions.Item>
      <Descriptions.Item label={t('field.entryLink')} span={{ xs: 1, md: 2, xl: 3 }}>
        <Space size={8} wrap style={{ minWidth: 0 }}>
          <Typography.Text
            copyable={{ text: link }}
            style={{ fontFamily: 'monospace', fontSize: 12, overflowWrap: 'anywhere' }}
            data-testid="project-entry-link"
          >
            {link}
          </Typography.Text>
          {canUpdate ? (
            <Popconfirm
              title={t('uuid.confirmTitle')}
              description={<div style={{ maxWidth: 320 }}>{t('uuid.confirm')}</div>}
              okText={t('uuid.ok')}
              onConfirm={() => void renew()}
            >
              <Button size="small" icon={<SyncOutlined />} loading={busy} data-testid="project-uuid-renew">
                {t('uuid.renew')}
              </Button>
            </Popconfirm>
          ) : null}
        </Space>
      </Descriptions.Item>
      <Descriptions.Item label={t('col.updateTime')}>
        {dayjs(project.updateTime).format('YYYY-MM-DD HH:mm')}
      </Descriptions.Item>
    </Descriptions>
  );
}
