import { Alert, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { visitLabel, type VisitRow } from '@esource/shared';
import { axisTicks, dayPercent, overlappingWindows, timelineRange, visitWindows } from '../visit-plan';

const ROW = 24;

/** A small preview of the scheduled visits: each visit's day (dot) and its −/+ window (bar), on one day axis. */
export function VisitTimeline({ visits }: { visits: readonly VisitRow[] }) {
  const { t, i18n } = useTranslation('design');
  const ws = visitWindows(visits);
  if (ws.length === 0)
    return (
      <Typography.Text type="secondary" data-testid="timeline-empty">
        {t('timeline.empty')}
      </Typography.Text>
    );
  const range = timelineRange(ws);
  const overlaps = overlappingWindows(ws);
  const ticks = axisTicks([0, ...ws.map((w) => w.day)], range);
  const height = ws.length * ROW + 28;
  return (
    <div data-testid="visit-timeline">
      <div style={{ display: 'flex', gap: 8 }}>
        <div style={{ width: 64, flex: 'none' }}>
          {ws.map((w) => (
            <div key={w.id} style={{ height: ROW, lineHeight: `${ROW}px`, fontSize: 12, fontWeight: 500 }}>
              {w.code}
            </div>
          ))}
        </div>
        {/* side margins leave room for the day labels at both ends */}
        <div style={{ position: 'relative', flex: 1, height, margin: '0 28px' }}>
          {/* day 0: the first visit */}
          <div
            style={{
              position: 'absolute',
              left: `${dayPercent(0, range)}%`,
              top: 0,
              bottom: 24,
              borderLeft: '1px dashed #bfbfbf',
            }}
          />
          {ws.map((w, i) => (
            <Tooltip
              key={w.id}
              title={t('timeline.tip', {
                name: visitLabel(w, i18n.language),
                day: w.day,
                start: w.start,
                end: w.end,
              })}
            >
              <div data-testid={`timeline-${w.code}`}>
                <div
                  style={{
                    position: 'absolute',
                    top: i * ROW + 7,
                    height: 10,
                    left: `${dayPercent(w.start, range)}%`,
                    width: `max(2px, ${dayPercent(w.end, range) - dayPercent(w.start, range)}%)`,
                    background: 'rgba(22,104,220,.18)',
                    border: '1px solid rgba(22,104,220,.45)',
                    borderRadius: 5,
                  }}
                />
                <div
                  style={{
                    position: 'absolute',
                    top: i * ROW + 6,
                    left: `calc(${dayPercent(w.day, range)}% - 6px)`,
                    width: 12,
                    height: 12,
                    borderRadius: 6,
                    background: '#1668dc',
                    border: '2px solid #fff',
                    boxShadow: '0 0 0 1px #1668dc',
                  }}
                />
              </div>
            </Tooltip>
          ))}
          <div
            style={{ position: 'absolute', left: 0, right: 0, bottom: 20, borderTop: '1px solid #d9d9d9' }}
          />
          {ticks.map((d) => (
            <div
              key={d}
              style={{
                position: 'absolute',
                bottom: 0,
                left: `${dayPercent(d, range)}%`,
                transform: 'translateX(-50%)',
                fontSize: 11,
                color: 'rgba(0,0,0,.45)',
                whiteSpace: 'nowrap',
              }}
            >
              {t('timeline.day', { day: d })}
            </div>
          ))}
        </div>
      </div>
      {overlaps.length ? (
        <Alert
          type="warning"
          showIcon
          style={{ marginTop: 8 }}
          title={t('timeline.overlap', { pairs: overlaps.map(([a, b]) => `${a.code}/${b.code}`).join(', ') })}
          data-testid="timeline-overlap"
        />
      ) : null}
    </div>
  );
}
