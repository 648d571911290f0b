import { Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { LegalLayout, useSections } from '../legal-layout';

interface PersonRow {
  category: string;
  items: string;
  purpose: string;
  when: string;
  retention: string;
}

const COLUMNS = ['category', 'items', 'purpose', 'when', 'retention'] as const;

/** List of personal information collected (spec §2: /person): one row a category. */
export default function PersonPage() {
  const { t } = useTranslation('legal');
  const raw = t('person.rows', { returnObjects: true }) as unknown;
  const rows = Array.isArray(raw) ? (raw as PersonRow[]) : [];
  return (
    <LegalLayout
      title={t('person.title')}
      intro={t('person.intro')}
      sections={useSections('person.sections')}
    >
      <Table<PersonRow>
        size="small"
        bordered
        pagination={false}
        rowKey="category"
        dataSource={rows}
        scroll={{ x: 760 }}
        data-testid="person-table"
        style={{ marginBottom: 24 }}
        columns={COLUMNS.map((c) => ({
          key: c,
          dataIndex: c,
          title: t(`person.columns.${c}`),
          width: c === 'category' ? 110 : undefined,
          ...(c === 'category' ? { render: (v: string) => <strong>{v}</strong> } : {}),
        }))}
      />
    </LegalLayout>
  );
}
