import type { ReactNode } from 'react';
import { Button, Space, Typography } from 'antd';
import { ArrowLeftOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../session';

/**
 * The header of the standalone staff pages (/DDC/share and the micro configs, spec §2 standalone routes): back, the
 * page's title, the project, and the page's own actions.
 */
export function DdcHeader({ title, extra, backTo }: { title: string; extra?: ReactNode; backTo?: string }) {
  const { t } = useTranslation('ddc');
  const navigate = useNavigate();
  const project = useSession((s) => s.project);
  const env = useSession((s) => s.env);
  const back = () => {
    if (backTo) void navigate(backTo);
    else if (window.history.length > 1) void navigate(-1);
    else void navigate('/overview');
  };
  return (
    <header className="ddc-header">
      <div className="ddc-header-title">
        <Button icon={<ArrowLeftOutlined />} onClick={back} data-testid="ddc-back">
          {t('back')}
        </Button>
        <Typography.Title level={4}>{title}</Typography.Title>
        {project ? (
          <Typography.Text type="secondary" data-testid="project-label">
            {project.no}-{project.name} · {env}
          </Typography.Text>
        ) : null}
      </div>
      {extra ? <Space wrap>{extra}</Space> : null}
    </header>
  );
}
