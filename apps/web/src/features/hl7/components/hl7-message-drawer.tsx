import { useState } from 'react';
import { Alert, App, Button, Descriptions, Drawer, Popconfirm, Result, Skeleton, Space, Tag, Tooltip, Typography } from 'antd';
import { CopyOutlined, RedoOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import dayjs from 'dayjs';
import type { Hl7MessageDetail, Hl7MessageRow } from '@esource/shared';
import { afterReplay, hl7Api, hl7DetailQuery, type Hl7Where } from '../api/hl7-api';
import { DEAD_LETTER, segmentLine, senderOf } from '../hl7-logic';
import { AckTag, Hl7Reason, Hl7StatusTag } from './hl7-tags';

const time = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '—');

/** The raw message, one segment per line as it came (long lines wrap inside their row; the gutter numbers segments). */
function RawMessage({ detail }: { detail: Hl7MessageDetail }) {
  return (
    <div className="hl7-raw" data-testid="hl7-raw" role="textbox" aria-readonly aria-multiline>
      {detail.segments.map((s, i) => {
        const { id, rest } = segmentLine(s);
        return (
          <div className="hl7-raw-line" key={i} data-testid="hl7-segment">
            <span className="hl7-raw-no" aria-hidden>
              {i + 1}
            </span>
            <span className="hl7-raw-text">
              {id ? <b className="hl7-raw-id">{id}</b> : null}
              {rest}
            </span>
          </div>
        );
      })}
    </div>
  );
}

/** How the message came: line ends, byte-order mark, whether its bytes decoded cleanly. */
function Flags({ d }: { d: Hl7MessageDetail }) {
  const { t } = useTranslation('hl7');
  return (
    <Space size={[4, 4]} wrap data-testid="hl7-flags">
      <Tooltip title={t(`lineEndsHint.${d.lineEnds}`)}>
        <Tag color={d.lineEnds === 'CR' ? 'default' : 'warning'}>{t('flags.lineEnds', { value: t(`lineEnds.${d.lineEnds}`) })}</Tag>
      </Tooltip>
      {d.bom ? (
        <Tooltip title={t('flags.bomHint')}>
          <Tag color="warning">{t('flags.bom')}</Tag>
        </Tooltip>
      ) : null}
      {d.exact ? (
        <Tag color="default">{t('flags.exact')}</Tag>
      ) : (
        <Tooltip title={t('flags.inexactHint')}>
          <Tag color="error">{t('flags.inexact')}</Tag>
        </Tooltip>
      )}
      <Tag>{t('flags.size', { size: d.size.toLocaleString() })}</Tag>
    </Space>
  );
}

/**
 * One HL7 v2 message: its header facts, why it is a dead letter, how it came (flags) and its raw text exactly as
 * received, segment by segment; a dead letter can be replayed (with confirmation) by a user who may update.
 */
export function Hl7MessageDrawer({ where, row, canReplay, onClose }: { where: Hl7Where; row: Hl7MessageRow; canReplay: boolean; onClose: () => void }) {
  const { t } = useTranslation('hl7');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const q = useQuery(hl7DetailQuery(where, row.id));
  const [result, setResult] = useState<Hl7MessageRow | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const replay = useMutation({
    mutationFn: () => hl7Api.replay(where.scope, row.id),
    onSuccess: async (r) => {
      setFailed(null);
      setResult(r);
      if (r.status !== DEAD_LETTER) void message.success(t('replay.done'));
      await afterReplay(qc, where, row.id);
    },
    onError: (e) => setFailed(e instanceof Error ? e.message : String(e)),
  });
  const d = q.data;
  const current = result ?? d ?? row;
  const copy = async () => {
    if (!d) return;
    try {
      await navigator.clipboard.writeText(d.text);
      void message.success(t('copied'));
    } catch {
      void message.error(t('copyFailed'));
    }
  };

  return (
    <Drawer
      open
      onClose={onClose}
      size={760}
      destroyOnHidden
      title={t('detail.title', { id: row.controlId || `#${row.id}` })}
      data-testid="hl7-drawer"
      extra={
        canReplay && current.status === DEAD_LETTER ? (
          <Popconfirm
            title={t('replay.confirmTitle')}
            description={<div style={{ maxWidth: 320 }}>{t('replay.confirm')}</div>}
            okText={t('replay.button')}
            cancelText={t('cancel')}
            onConfirm={() => replay.mutate()}
          >
            <Button type="primary" icon={<RedoOutlined />} loading={replay.isPending} data-testid="hl7-replay">
              {t('replay.button')}
            </Button>
          </Popconfirm>
        ) : null
      }
    >
      {result ? (
        result.status === DEAD_LETTER ? (
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 16 }}
            data-testid="hl7-replay-result"
            title={t('replay.stillDead')}
            description={
              <>
                <Hl7Reason code={result.errorCode} detail={result.errorDetail} block />
                {result.errorDetail ? <div className="hl7-detail-text">{result.errorDetail}</div> : null}
              </>
            }
          />
        ) : (
          <Alert
            type="success"
            showIcon
            style={{ marginBottom: 16 }}
            data-testid="hl7-replay-result"
            title={t('replay.stored', { records: result.records, connection: result.connectionName ?? '—' })}
            description={where.scope === 'system' && result.connectionName ? t('replay.movedToProject') : undefined}
          />
        )
      ) : null}
      {failed ? <Alert type="error" showIcon style={{ marginBottom: 16 }} title={t('replay.failed')} description={failed} data-testid="hl7-replay-error" /> : null}
      <Descriptions column={2} size="small" bordered style={{ marginBottom: 16 }} data-testid="hl7-facts">
        <Descriptions.Item label={t('col.status')}>
          <Hl7StatusTag status={current.status} />
        </Descriptions.Item>
        <Descriptions.Item label={t('col.ack')}>
          <AckTag code={current.ackCode} />
        </Descriptions.Item>
        <Descriptions.Item label={t('col.type')}>{current.messageType || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('col.controlId')}>{current.controlId || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('col.sender')}>{senderOf(current) || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('detail.remote')}>{current.remote || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('col.receivedAt')}>{time(current.receivedAt)}</Descriptions.Item>
        <Descriptions.Item label={t('detail.processedAt')}>{time(current.processedAt)}</Descriptions.Item>
        <Descriptions.Item label={t('detail.connection')}>{current.connectionName || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('col.records')}>{current.records}</Descriptions.Item>
        {current.replayedAt ? (
          <Descriptions.Item label={t('detail.replayed')} span={2}>
            {t('detail.replayedBy', { time: time(current.replayedAt), name: current.replayedByName ?? '—' })}
          </Descriptions.Item>
        ) : null}
        {current.errorCode ? (
          <Descriptions.Item label={t('col.error')} span={2}>
            <Hl7Reason code={current.errorCode} detail={current.errorDetail} block />
            {current.errorDetail ? <div className="hl7-detail-text">{current.errorDetail}</div> : null}
          </Descriptions.Item>
        ) : null}
      </Descriptions>
      <div className="hl7-raw-head">
        <Typography.Title level={5} style={{ margin: 0 }}>
          {t('detail.raw')}
        </Typography.Title>
        {d ? (
          <Space size={8} wrap>
            <Flags d={d} />
            <Button size="small" icon={<CopyOutlined />} onClick={() => void copy()}>
              {t('copy')}
            </Button>
          </Space>
        ) : null}
      </div>
      {q.isPending ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : q.isError ? (
        <Result
          status="warning"
          title={t('detail.loadFailed')}
          subTitle={q.error.message}
          extra={<Button onClick={() => void q.refetch()}>{t('retry')}</Button>}
        />
      ) : d ? (
        d.segments.length ? (
          <RawMessage detail={d} />
        ) : (
          <Typography.Text type="secondary">{t('detail.emptyRaw')}</Typography.Text>
        )
      ) : null}
      <Typography.Paragraph type="secondary" style={{ marginTop: 8, fontSize: 12 }}>
        {t('detail.rawHint')}
      </Typography.Paragraph>
    </Drawer>
  );
}
