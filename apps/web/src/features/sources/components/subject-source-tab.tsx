import { Button, Empty, Space, Tag, Typography } from 'antd';
import { DatabaseOutlined, HistoryOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { usePms, useSession } from '../../session';
import { typeListQuery } from '../api/sources-api';
import { DOC_TYPE_COLOR, docTypeKey } from '../source-logic';
import { LatestExtraction } from './latest-extraction';
import { RunExtractionButton } from './run-extraction';

/**
 * The "Source data" tab of the subject detail page: records by document type, the latest extraction, links to
 * the source-data page and the acquisition details, and Run extraction (source:extract:execute).
 */
export function SubjectSourceTab({ ptsId }: { ptsId: number }) {
  const { t } = useTranslation('sources');
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const allowed = has('source:extract:query');
  const types = useQuery({ ...typeListQuery({ env, projectId }, ptsId), enabled: allowed && projectId !== null });
  if (!allowed) return <Empty description={t('tab.noPermission')} data-testid="tab-source-denied" />;
  const counts = (types.data ?? []).filter((x) => x.count > 0);
  return (
    <div data-testid="subject-source-tab">
      <Space wrap style={{ marginBottom: 12 }}>
        <Link to={`/project/sourceData?ptsId=${ptsId}`} data-testid="open-source-data">
          <Button icon={<DatabaseOutlined />}>{t('tab.open')}</Button>
        </Link>
        <Link to={`/project/SickFile/gatherPtsData/detail?ptsId=${ptsId}`}>
          <Button icon={<HistoryOutlined />}>{t('data.toGather')}</Button>
        </Link>
        <RunExtractionButton ptsId={ptsId} />
      </Space>
      <div style={{ marginBottom: 12 }}>
        <LatestExtraction ptsId={ptsId} />
      </div>
      {types.isError ? (
        <Typography.Text type="warning">{types.error.message}</Typography.Text>
      ) : counts.length ? (
        <Space size={[6, 6]} wrap data-testid="subject-source-counts">
          {counts.map((c) => {
            const key = docTypeKey(c.docType);
            return (
              <Link key={c.docType} to={`/project/sourceData?ptsId=${ptsId}&docType=${c.docType}`}>
                <Tag color={key ? DOC_TYPE_COLOR[key] : 'default'}>
                  {key ? t(`docType.${key}`) : c.docType}: {c.count}
                </Tag>
              </Link>
            );
          })}
        </Space>
      ) : types.isSuccess ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tab.empty')} />
      ) : null}
    </div>
  );
}
