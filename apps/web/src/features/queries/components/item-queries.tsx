import { useState } from 'react';
import { Badge, Button, Popover, Space, Tooltip, Typography } from 'antd';
import { QuestionCircleOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { FieldComponent } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { labelFor } from '../../crf-renderer';
import { fieldMarksQuery, type RaiseInput } from '../api/queries-api';
import { QueryDrawer } from './query-drawer';
import { RaiseQueryDialog } from './raise-query-dialog';

/**
 * Beside an eCRF item: its open (red) and answered (gold) queries — a click opens them — and, for monitors and data
 * managers, "raise a query" on it.
 */
export function ItemQueries({ instanceId, target, field }: { instanceId: number; target: Omit<RaiseInput, 'text' | 'variable'>; field: FieldComponent }) {
  const { t } = useTranslation('queries');
  const has = usePms();
  const language = useSession((s) => s.language);
  const marks = useQuery({ ...fieldMarksQuery(instanceId), enabled: has('doubt:querying:query') || has('doubt:replied:query') });
  const [open, setOpen] = useState<number | null>(null);
  const [raising, setRaising] = useState(false);
  const mine = marks.data?.find((m) => m.variable === field.variable);
  const label = labelFor(field, language);
  const canRaise = has('doubt:querying:add');
  if (!mine && !canRaise) return null;
  return (
    <>
      {mine ? (
        mine.ids.length === 1 ? (
          <Tooltip title={t('marker.open', { open: mine.open, replied: mine.replied })}>
            <Badge count={mine.open + mine.replied} size="small" color={mine.open ? '#cf1322' : '#d48806'}>
              <Button size="small" type="text" icon={<QuestionCircleOutlined style={{ color: mine.open ? '#cf1322' : '#d48806' }} />} onClick={() => setOpen(mine.ids[0]!)} aria-label={t('marker.open', { open: mine.open, replied: mine.replied })} data-testid={`item-query-${field.variable}`} />
            </Badge>
          </Tooltip>
        ) : (
          <Popover
            trigger="click"
            content={
              <Space orientation="vertical">
                {mine.ids.map((id) => (
                  <Button key={id} size="small" type="link" onClick={() => setOpen(id)}>
                    {t('marker.item', { id })}
                  </Button>
                ))}
              </Space>
            }
          >
            <Badge count={mine.open + mine.replied} size="small" color={mine.open ? '#cf1322' : '#d48806'}>
              <Button size="small" type="text" icon={<QuestionCircleOutlined style={{ color: mine.open ? '#cf1322' : '#d48806' }} />} aria-label={t('marker.open', { open: mine.open, replied: mine.replied })} data-testid={`item-query-${field.variable}`} />
            </Badge>
          </Popover>
        )
      ) : null}
      {canRaise ? (
        <Tooltip title={t('raise.button')}>
          <Button size="small" type="text" onClick={() => setRaising(true)} aria-label={`${t('raise.button')}: ${label}`} data-testid={`raise-query-${field.variable}`}>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('raise.short')}
            </Typography.Text>
          </Button>
        </Tooltip>
      ) : null}
      <RaiseQueryDialog target={raising ? { ...target, variable: field.variable } : null} label={label} onClose={() => setRaising(false)} />
      <QueryDrawer id={open} onClose={() => setOpen(null)} />
    </>
  );
}
