import { useState } from 'react';
import { Badge, Button, Popover, Tooltip, Typography } from 'antd';
import { BellOutlined, SearchOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api-client';

/** Message badge (spec §2, §7: POST /message/manager/badgeInfo; a 401 here does not open the expiry dialog). */
export function MessageBadge({ token }: { token: string | null }) {
  const { t } = useTranslation('layout');
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const q = useQuery({
    queryKey: ['badge', token],
    queryFn: () =>
      api.post<{ unread: number; total: number }>(
        '/message/manager/badgeInfo',
        {},
        { silent: true, ignore401: true },
      ),
    enabled: Boolean(token),
    refetchInterval: 60_000,
    retry: false,
  });
  const unread = q.data?.unread ?? 0;
  return (
    <Popover
      trigger="click"
      placement="bottomRight"
      title={t('messages')}
      open={open}
      onOpenChange={setOpen}
      content={
        <div style={{ maxWidth: 260 }}>
          <Typography.Paragraph style={{ marginBottom: 8 }} data-testid="message-badge-count">
            {t('messagesCount', { unread, total: q.data?.total ?? 0 })}
          </Typography.Paragraph>
          <Button
            type="primary"
            size="small"
            block
            onClick={() => {
              setOpen(false);
              void navigate('/messages');
            }}
            data-testid="message-badge-open"
          >
            {t('openMessages')}
          </Button>
        </div>
      }
    >
      <Badge count={unread} size="small" offset={[-4, 4]} data-testid="message-badge">
        <Button type="text" icon={<BellOutlined />} aria-label={t('messages')} />
      </Badge>
    </Popover>
  );
}

export function SearchButton({ onOpen }: { onOpen: () => void }) {
  const { t } = useTranslation('layout');
  const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent);
  return (
    <Tooltip title={t('searchTooltip')}>
      <Button
        icon={<SearchOutlined />}
        onClick={onOpen}
        data-testid="search-button"
        aria-label={t('search')}
        style={{ color: 'rgba(0,0,0,.45)' }}
      >
        <span className="esource-narrow-hide">
          {t('search')} <kbd style={{ fontSize: 11, marginInlineStart: 4 }}>{mac ? '⌘K' : 'Ctrl K'}</kbd>
        </span>
      </Button>
    </Tooltip>
  );
}
