import { useState } from 'react';
import { Button, Input, Space, Tag, Tooltip, Typography } from 'antd';
import type { TableColumnsType, TableProps } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import {
  DICTIONARY_LIMITS,
  DICTIONARY_SORT_FIELDS,
  type DictionarySortField,
  type DictionaryTermView,
  type DictionaryView,
} from '@esource/shared';
import { PagedTable, usePaging } from '../../../components/paged-table';
import { termsQuery, type TermFilters } from '../api/dictionaries-api';

/**
 * The terms of one version: a search box (code, term or synonym anywhere; pinyin initials from the start), sortable
 * columns (file order by default), 50/100/200 paging, and the empty, filtered-empty, loading and error states.
 */
export function TermsTable({ version }: { version: DictionaryView }) {
  const { t } = useTranslation('dictionaries');
  const [keyword, setKeyword] = useState('');
  const [filters, setFilters] = useState<TermFilters>({});
  const paging = usePaging();
  const { pageNumber, pageSize } = paging;
  const q = useQuery(termsQuery(version.id, filters, pageNumber, pageSize));

  const sortOrderOf = (f: DictionarySortField) =>
    filters.sortField === f
      ? filters.sortOrder === 'desc'
        ? ('descend' as const)
        : ('ascend' as const)
      : null;
  // paging goes through onPage; here only a change of sort (which starts again at page 1)
  const onChange: TableProps<DictionaryTermView>['onChange'] = (_p, _f, sorter, extra) => {
    if (extra.action !== 'sort') return;
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const field =
      typeof s?.columnKey === 'string' && (DICTIONARY_SORT_FIELDS as readonly string[]).includes(s.columnKey)
        ? (s.columnKey as DictionarySortField)
        : undefined;
    setFilters((x) => ({
      keyword: x.keyword,
      ...(s?.order && field ? { sortField: field, sortOrder: s.order === 'descend' ? 'desc' : 'asc' } : {}),
    }));
    paging.first();
  };

  const columns: TableColumnsType<DictionaryTermView> = [
    {
      title: t('col.rowNo'),
      key: 'rowNo',
      dataIndex: 'rowNo',
      width: 80,
      sorter: true,
      sortOrder: sortOrderOf('rowNo'),
    },
    {
      title: t('col.code'),
      key: 'code',
      dataIndex: 'code',
      width: 140,
      sorter: true,
      sortOrder: sortOrderOf('code'),
      render: (v: string) => <Typography.Text style={{ fontFamily: 'monospace' }}>{v}</Typography.Text>,
    },
    {
      title: t('col.termZh'),
      key: 'termZh',
      dataIndex: 'termZh',
      width: 240,
      ellipsis: { showTitle: true },
      sorter: true,
      sortOrder: sortOrderOf('termZh'),
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.termEn'),
      key: 'termEn',
      dataIndex: 'termEn',
      ellipsis: { showTitle: true },
      sorter: true,
      sortOrder: sortOrderOf('termEn'),
      render: (v: string | null) => v ?? '—',
    },
    {
      title: t('col.synonyms'),
      key: 'synonyms',
      width: 260,
      render: (_: unknown, r) =>
        r.synonyms.length ? (
          <Tooltip title={r.synonyms.join('; ')}>
            <Space size={[4, 4]} wrap>
              {r.synonyms.slice(0, 4).map((s) => (
                <Tag key={s} style={{ marginInlineEnd: 0 }}>
                  {s}
                </Tag>
              ))}
              {r.synonyms.length > 4 ? <Tag>+{r.synonyms.length - 4}</Tag> : null}
            </Space>
          </Tooltip>
        ) : (
          '—'
        ),
    },
  ];

  return (
    <div data-testid="dict-terms">
      <div style={{ display: 'flex', gap: 8, alignItems: 'center', marginBottom: 12, flexWrap: 'wrap' }}>
        <Typography.Text strong>{t('showing', { version: version.version })}</Typography.Text>
        <span style={{ flex: 1 }} />
        <Input.Search
          allowClear
          value={keyword}
          onChange={(e) => setKeyword(e.target.value)}
          onSearch={(v) => {
            setFilters((x) => ({ ...x, keyword: v.trim() || undefined }));
            paging.first();
          }}
          placeholder={t('keywordPlaceholder')}
          maxLength={DICTIONARY_LIMITS.textMax}
          style={{ width: 300 }}
          data-testid="dict-terms-search"
        />
        <Tooltip title={t('refresh')}>
          <Button icon={<ReloadOutlined />} onClick={() => void q.refetch()} aria-label={t('refresh')} />
        </Tooltip>
      </div>
      <PagedTable<DictionaryTermView>
        rowKey="id"
        query={q}
        page={pageNumber}
        pageSize={pageSize}
        onPage={paging.onPage}
        columns={columns}
        onChange={onChange}
        empty={filters.keyword ? t('emptyFiltered') : t('empty')}
        texts={{ loadFailed: t('loadFailed'), retry: t('retry'), total: (n) => t('total', { count: n }) }}
        data-testid="dict-terms-table"
      />
    </div>
  );
}
