import { useState } from 'react';
import { Badge, Button } from 'antd';
import { QuestionCircleOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { usePms } from '../../session';
import { fieldMarksQuery, type RaiseInput } from '../api/queries-api';
import { QueryDrawer } from './query-drawer';
import { RaiseQueryDialog } from './raise-query-dialog';

/** In a form's header: its form-level queries (open them) and, for monitors and data managers, "query this form". */
export function FormQueries({ instanceId, target, formName }: { instanceId: number; target: Omit<RaiseInput, 'text' | 'variable'>; formName: string }) {
  const { t } = useTranslation('queries');
  const has = usePms();
  const marks = useQuery({ ...fieldMarksQuery(instanceId), enabled: has('doubt:querying:query') || has('doubt:replied:query') });
  const [open, setOpen] = useState<number | null>(null);
  const [raising, setRaising] = useState(false);
  const mine = marks.data?.find((m) => m.variable === null);
  const canRaise = has('doubt:querying:add');
  if (!mine && !canRaise) return null;
  return (
    <>
      {mine ? (
        <Badge count={mine.open + mine.replied} size="small" color={mine.open ? '#cf1322' : '#d48806'}>
          <Button icon={<QuestionCircleOutlined />} onClick={() => setOpen(mine.ids[mine.ids.length - 1]!)} data-testid="form-query-open">
            {t('form.open')}
          </Button>
        </Badge>
      ) : null}
      {canRaise ? (
        <Button onClick={() => setRaising(true)} data-testid="form-query-raise">
          {t('form.raise')}
        </Button>
      ) : null}
      <RaiseQueryDialog target={raising ? target : null} label={formName} onClose={() => setRaising(false)} />
      <QueryDrawer id={open} onClose={() => setOpen(null)} />
    </>
  );
}
