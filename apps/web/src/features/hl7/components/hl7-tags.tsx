import { Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ACK_COLOR, HL7_STATUS_COLOR, HL7_STATUS_KEY, reasonKey, statusOf } from '../hl7-logic';

/** The status tag of a message: received / stored / dead letter / replayed. */
export function Hl7StatusTag({ status }: { status: number }) {
  const { t } = useTranslation('hl7');
  const s = statusOf(status);
  return (
    <Tag color={HL7_STATUS_COLOR[s]} data-testid="hl7-status">
      {t(`status.${HL7_STATUS_KEY[s]}`)}
    </Tag>
  );
}

/** The ACK code the sender got (AA / AE / AR), with what it means on hover. */
export function AckTag({ code }: { code: string | null }) {
  const { t } = useTranslation('hl7');
  if (!code) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Tooltip title={t(`ack.${code}`, { defaultValue: code })}>
      <Tag color={ACK_COLOR[code] ?? 'default'}>{code}</Tag>
    </Tooltip>
  );
}

/** A dead letter's error code with its translated reason (the server's detail on hover). */
export function Hl7Reason({ code, detail, block }: { code: string | null; detail: string | null; block?: boolean }) {
  const { t } = useTranslation('hl7');
  const key = reasonKey(code);
  if (!key || !code) return <Typography.Text type="secondary">—</Typography.Text>;
  const reason = t(key);
  if (block)
    return (
      <span data-testid="hl7-reason">
        <Typography.Text code>{code}</Typography.Text> {reason}
      </span>
    );
  return (
    <Tooltip
      title={
        <>
          <div>{reason}</div>
          {detail ? <div style={{ marginTop: 4, opacity: 0.85, fontSize: 12 }}>{detail}</div> : null}
        </>
      }
    >
      <div style={{ minWidth: 0 }} data-testid="hl7-reason">
        <Typography.Text code style={{ fontSize: 12 }}>
          {code}
        </Typography.Text>
        <Typography.Text type="secondary" ellipsis style={{ display: 'block', fontSize: 12 }}>
          {reason}
        </Typography.Text>
      </div>
    </Tooltip>
  );
}
