import { Card, Col, Row, Statistic } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SignalReport } from '@esource/shared';
import { SERIOUS_COLOR, SIGNAL_GRADE_COLOR } from '../signal-charts';

const share = (n: number, of: number) => (of ? Math.round((n / of) * 100) : 0);

/** Events, subjects with an AE, serious events and events of grade 3 or worse (with their share of the events). */
export function SignalKpis({ totals }: { totals: SignalReport['totals'] }) {
  const { t } = useTranslation('signal');
  const cards = [
    { key: 'events', value: totals.events, suffix: null, color: undefined },
    { key: 'subjects', value: totals.subjects, suffix: null, color: undefined },
    { key: 'serious', value: totals.serious, suffix: `(${share(totals.serious, totals.events)} %)`, color: totals.serious ? SERIOUS_COLOR : undefined },
    { key: 'severe', value: totals.severe, suffix: `(${share(totals.severe, totals.events)} %)`, color: totals.severe ? SIGNAL_GRADE_COLOR[4] : undefined },
  ] as const;
  return (
    <Row gutter={[12, 12]} className="signal-kpis">
      {cards.map((c) => (
        <Col key={c.key} xs={12} lg={6}>
          <Card size="small" data-testid={`signal-kpi-${c.key}`}>
            <Statistic
              title={t(`kpi.${c.key}`)}
              value={c.value}
              suffix={c.suffix ? <span className="signal-kpi-share">{c.suffix}</span> : undefined}
              styles={{ content: c.color ? { color: c.color } : {} }}
            />
          </Card>
        </Col>
      ))}
    </Row>
  );
}
