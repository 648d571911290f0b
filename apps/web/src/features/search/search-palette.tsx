import { useEffect, useState } from 'react';
import { Empty, Input, List, Modal, Spin, Tag, Typography } from 'antd';
import { SearchOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { search, type SearchHit } from './api/search-api';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}

export default function SearchPalette({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('layout');
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const res = useQuery({ queryKey: ['search', q], queryFn: () => search(q), enabled: open && q.length > 0 });
  const [active, setActive] = useState(0);
  const hits = res.data ?? [];

  const go = (h: SearchHit) => {
    onClose();
    setText('');
    if (h.kind === 'project') void navigate(`/project?proId=${h.id}`);
    else if (h.projectId) void navigate(`/project?proId=${h.projectId}`);
  };

  return (
    <Modal
      open={open}
      onCancel={onClose}
      footer={null}
      closable={false}
      width={600}
      destroyOnHidden
      wrapClassName="search-palette"
      styles={{ body: { padding: 0 } }}
    >
      <Input
        autoFocus
        size="large"
        variant="borderless"
        prefix={<SearchOutlined />}
        placeholder={t('searchPlaceholder')}
        value={text}
        data-testid="search-input"
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, hits.length - 1));
          if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
          if (e.key === 'Enter' && hits[active]) go(hits[active]);
        }}
        style={{ padding: '12px 16px', borderBottom: '1px solid #f0f0f0' }}
      />
      <div style={{ maxHeight: 360, overflowY: 'auto', padding: 8 }}>
        {q.length === 0 ? (
          <Typography.Paragraph type="secondary" style={{ padding: 12, margin: 0 }}>
            {t('searchHelp')}
          </Typography.Paragraph>
        ) : res.isFetching && hits.length === 0 ? (
          <div style={{ padding: 24, textAlign: 'center' }}>
            <Spin />
          </div>
        ) : hits.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('searchNothing')} />
        ) : (
          <List
            dataSource={hits}
            renderItem={(h, i) => (
              <List.Item
                data-testid="search-hit"
                onClick={() => go(h)}
                onMouseEnter={() => setActive(i)}
                style={{
                  cursor: 'pointer',
                  padding: '8px 12px',
                  borderRadius: 6,
                  background: i === active ? '#f0f5ff' : undefined,
                }}
              >
                <Tag>{t(`searchKind.${h.kind}`)}</Tag>
                <Typography.Text strong style={{ flex: 1 }}>
                  {h.no} · {h.name}
                </Typography.Text>
              </List.Item>
            )}
          />
        )}
      </div>
    </Modal>
  );
}
