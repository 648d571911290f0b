import { Badge, Card, Space, Tabs, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { Permission, SourceFileTab } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { tabCountsQuery } from '../api/documents-api';
import { FileTable } from '../components/file-table';
import '../documents.css';

const TABS: { key: SourceFileTab; pm: Permission }[] = [
  { key: 'pending', pm: 'message:pending:query' },
  { key: 'processed', pm: 'message:processed:query' },
  { key: 'invalid', pm: 'message:invalid:query' },
];

/**
 * De-identification messages (spec §2 /project/message, /project/message/sickRecordMsg): the files a person still
 * has to act on (pending), those passed (processed) and those whose automatic de-identification failed (invalid),
 * each tab shown to the roles that may query it, with its count.
 */
export default function DeidMessagesPage() {
  const { t } = useTranslation('documents');
  const has = usePms();
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const counts = useQuery(tabCountsQuery({ env, projectId }));
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((x) => has(x.pm));
  const active = tabs.find((x) => x.key === params.get('tab'))?.key ?? tabs[0]?.key ?? 'pending';
  return (
    <Card size="small" data-testid="deid-messages">
      <Typography.Paragraph type="secondary">{t('messages.intro')}</Typography.Paragraph>
      <Tabs
        activeKey={active}
        onChange={(k) => setParams({ tab: k }, { replace: true })}
        destroyOnHidden
        items={tabs.map((x) => ({
          key: x.key,
          label: (
            <Space size={6} data-testid={`tab-${x.key}`}>
              {t(`messages.${x.key}`)}
              <Badge count={counts.data?.[x.key] ?? 0} showZero color={x.key === 'pending' ? '#faad14' : x.key === 'invalid' ? '#ff4d4f' : '#52c41a'} overflowCount={999} />
            </Space>
          ),
          children: <FileTable fixed={{ tab: x.key }} from="message" />,
        }))}
      />
    </Card>
  );
}
