import { useEffect, useState } from 'react';
import { Alert, App, Button, Descriptions, Drawer, Form, Input, Result, Skeleton, Space, Switch, Tag, Timeline, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { FieldComponent, QueryDetail } from '@esource/shared';
import { useSession } from '../../session';
import { FieldControl, labelFor } from '../../crf-renderer';
import { afterQueryChange, queriesApi, queryDetailQuery } from '../api/queries-api';
import { QueryStatusTag } from './query-status-tag';
import '../queries.css';

const TEXT_MAX = 1000;

function valueText(v: unknown, field: FieldComponent | null, language: string): string {
  if (v === null || v === undefined || v === '') return '—';
  const label = (x: unknown) => field?.options?.find((o) => o.value === x) ?? null;
  const one = (x: unknown) => {
    const o = label(x);
    return o ? labelFor(o, language) : String(x);
  };
  return Array.isArray(v) ? v.map(one).join(', ') : one(v);
}

/**
 * One query: where it is (subject, visit, form, item and its current value), its thread, and the steps the caller
 * may take now — reply (the site; on an item it may correct the value with a reason in the same step), close (the
 * raiser), reopen with a reason.
 */
export function QueryDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation('queries');
  const q = useQuery(queryDetailQuery(id));
  return (
    <Drawer open={id !== null} onClose={onClose} size={640} title={id ? t('drawer.title', { id }) : ''} destroyOnHidden data-testid="query-drawer">
      {q.isError && !q.data ? (
        <Result status="warning" title={t('loadFailed')} subTitle={q.error.message} extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>} />
      ) : !q.data ? (
        <Skeleton active />
      ) : (
        <QueryBody d={q.data} />
      )}
    </Drawer>
  );
}

function QueryBody({ d }: { d: QueryDetail }) {
  const { t } = useTranslation('queries');
  const language = useSession((s) => s.language);
  const field = (d.field ?? null) as FieldComponent | null;
  return (
    <Space orientation="vertical" size={16} style={{ width: '100%' }}>
      <Descriptions size="small" column={2} bordered>
        <Descriptions.Item label={t('col.status')}>
          <QueryStatusTag status={d.status} />
        </Descriptions.Item>
        <Descriptions.Item label={t('col.origin')}>{d.origin === 'auto' ? <Tag color="purple">{t('origin.auto')}</Tag> : t('origin.manual')}</Descriptions.Item>
        <Descriptions.Item label={t('col.subject')}>{d.ptsNo}</Descriptions.Item>
        <Descriptions.Item label={t('col.site')}>{d.siteName}</Descriptions.Item>
        <Descriptions.Item label={t('col.visit')}>{d.visitName ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('col.form')}>{d.formName ?? '—'}</Descriptions.Item>
        {d.level === 'item' ? (
          <>
            <Descriptions.Item label={t('col.item')}>{d.itemLabel ?? d.variable}</Descriptions.Item>
            <Descriptions.Item label={t('col.value')}>
              <span data-testid="query-value">{valueText(d.value, field, language)}</span>
              {field?.unit ? ` ${field.unit}` : ''}
            </Descriptions.Item>
          </>
        ) : null}
      </Descriptions>
      <div>
        <Typography.Title level={5}>{t('drawer.thread')}</Typography.Title>
        <Timeline
          data-testid="query-thread"
          items={d.messages.map((m) => ({
            key: m.id,
            color: m.action === 'raise' || m.action === 'reopen' ? 'red' : m.action === 'reply' ? 'gold' : 'gray',
            content: (
              <div>
                <Typography.Text strong>{t(`action.${m.action}`)}</Typography.Text>
                <Typography.Text type="secondary" style={{ marginInlineStart: 8, fontSize: 12 }}>
                  {m.userName ?? '—'} · {dayjs(m.createTime).format('YYYY-MM-DD HH:mm')}
                </Typography.Text>
                {m.text ? <Typography.Paragraph style={{ margin: '4px 0 0', whiteSpace: 'pre-wrap' }}>{m.text}</Typography.Paragraph> : null}
                {m.changed ? (
                  <Typography.Paragraph type="secondary" style={{ margin: 0 }} data-testid="query-value-change">
                    {t('drawer.changed', { from: valueText(m.oldValue, field, language), to: valueText(m.newValue, field, language) })}
                  </Typography.Paragraph>
                ) : null}
              </div>
            ),
          }))}
        />
      </div>
      <QueryActions d={d} field={field} />
    </Space>
  );
}

function QueryActions({ d, field }: { d: QueryDetail; field: FieldComponent | null }) {
  const { t } = useTranslation('queries');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const language = useSession((s) => s.language);
  const [action, setAction] = useState<'reply' | 'close' | 'reopen' | null>(null);
  const [text, setText] = useState('');
  const [changeValue, setChangeValue] = useState(false);
  const [value, setValue] = useState<unknown>(d.value);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setAction(d.actions.length === 1 ? d.actions[0]! : null);
    setText('');
    setChangeValue(false);
    setValue(d.value);
    setReason('');
    setError(null);
  }, [d.id, d.version, d.actions, d.value]);

  if (d.actions.length === 0) return null;
  const needsText = action === 'reply' || action === 'reopen';
  const submit = async () => {
    if (!action) return;
    if (needsText && !text.trim()) {
      setError(t(`drawer.${action}Required`));
      return;
    }
    if (changeValue && !reason.trim()) {
      setError(t('drawer.reasonRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await queriesApi.update({
        id: d.id,
        version: d.version,
        action,
        ...(text.trim() ? { text: text.trim() } : {}),
        ...(action === 'reply' && changeValue ? { value, reason: reason.trim() } : {}),
      });
      void message.success(t(`done.${action}`));
      await afterQueryChange(qc);
      // the eCRF shows the corrected value
      if (changeValue) await qc.invalidateQueries({ queryKey: ['ecrf'] });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="query-actions" data-testid="query-actions">
      <Space wrap style={{ marginBottom: 12 }}>
        {d.actions.map((a) => (
          <Button key={a} type={action === a ? 'primary' : 'default'} onClick={() => setAction(a)} data-testid={`query-action-${a}`}>
            {t(`do.${a}`)}
          </Button>
        ))}
      </Space>
      {action ? (
        <Form layout="vertical" onFinish={() => void submit()}>
          <Form.Item label={t(`drawer.${action}Label`)} required={needsText}>
            <Input.TextArea rows={3} maxLength={TEXT_MAX} showCount value={text} onChange={(e) => setText(e.target.value)} placeholder={t(`drawer.${action}Placeholder`)} data-testid="query-text" />
          </Form.Item>
          {action === 'reply' && d.level === 'item' && field ? (
            <>
              <Form.Item>
                <Space>
                  <Switch checked={changeValue} onChange={setChangeValue} data-testid="query-change-value" />
                  <span>{t('drawer.changeValue')}</span>
                </Space>
              </Form.Item>
              {changeValue ? (
                <>
                  <Form.Item label={t('drawer.newValue', { item: d.itemLabel ?? d.variable })} required>
                    <div data-testid="query-new-value">
                      <FieldControl field={field} value={value} onChange={setValue} language={language} />
                    </div>
                  </Form.Item>
                  <Form.Item label={t('drawer.reason')} required extra={t('drawer.reasonHint')}>
                    <Input maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="query-reason" />
                  </Form.Item>
                </>
              ) : null}
            </>
          ) : null}
          {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 12 }} data-testid="query-error" /> : null}
          <Button type="primary" htmlType="submit" loading={busy} data-testid="query-submit">
            {t(`do.${action}`)}
          </Button>
        </Form>
      ) : null}
    </div>
  );
}
