import { Navigate } from 'react-router';
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../session';
import { projectLanding } from '../../../lib/routing/route-access';
import { PageSpinner } from '../../../components/page-spinner';

/** /project?proId=…: after the guard has entered the project, go to the first page this user may open. */
export default function ProjectEntryPage() {
  const access = useAccess();
  const { t } = useTranslation('projects');
  if (!access) return <PageSpinner />;
  const to = projectLanding(access);
  if (!to) return <Result status="403" title={t('noProjectPages')} />;
  return <Navigate to={to} replace />;
}
