import { Button, Card, Result, Skeleton, Space, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session';
import { subjectDetailPath, subjectQuery } from '../../subjects';
import { SubjectDocumentsTab } from '../components/subject-documents-tab';

/**
 * A subject's folder (spec §2 /project/ptsFolder?ptsId=): the subject's source documents on their own page — the same
 * list, upload and PDF synthesis as the subject's Documents tab — for links that point at the folder.
 */
export default function SubjectFolderPage() {
  const { t } = useTranslation('documents');
  const [params] = useSearchParams();
  const env = useSession((s) => s.env);
  const loginType = useSession((s) => s.loginType);
  const projectId = useSession((s) => s.project?.id ?? null);
  const raw = params.get('ptsId');
  const ptsId = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  const q = useQuery(subjectQuery({ env, projectId }, ptsId));
  if (ptsId === null || (q.isError && !q.data)) return <Result status="404" title={t('folder.notFound')} extra={<Link to="/project/sourceFile"><Button>{t('folder.back')}</Button></Link>} />;
  if (!q.data) return <Skeleton active />;
  const s = q.data;
  return (
    <Card
      size="small"
      data-testid="subject-folder-page"
      title={
        <Space>
          <span>{t('folder.title', { ptsNo: s.ptsNo })}</span>
          <Tag>{s.siteName}</Tag>
        </Space>
      }
      extra={<Link to={subjectDetailPath(s, loginType, { activeKey: 'documents' })}>{t('folder.subject')}</Link>}
    >
      <Typography.Paragraph type="secondary">{t('folder.intro')}</Typography.Paragraph>
      <SubjectDocumentsTab ptsId={s.ptsId} ptsNo={s.ptsNo} />
    </Card>
  );
}
