import { useMemo } from 'react';
import { Card, Col, Empty, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SignalPeriod, SignalReport } from '@esource/shared';
import { periodGradeOption, periodSeriousOption, periodText, rankedGradeOption, rankedHeight, type ChartTexts } from '../signal-charts';
import { EChart } from '../../../components/echart';

const PERIOD_HEIGHT = 300;

/** The four charts: events per period by grade, serious vs non-serious per period, the top terms, the sites. */
export function SignalChartsGrid({ report, period }: { report: SignalReport; period: SignalPeriod }) {
  const { t, i18n } = useTranslation('signal');
  const charts = useMemo(() => {
    const texts = (aria: string): ChartTexts => ({
      grade: (g) => t('grade', { grade: g }),
      events: t('axis.events'),
      serious: t('serious'),
      nonSerious: t('nonSerious'),
      aria,
    });
    const labels = report.periods.map((r) => periodText(r, period, (year) => t('yearOnly', { year })));
    const termLabels = report.topTerms.map((r) => r.term);
    const siteLabels = report.sites.map((r) => r.siteName);
    return {
      byGrade: periodGradeOption(report.periods, labels, texts(t('chart.byGradeAria', { period: t(`periodWord.${period}`) }))),
      bySerious: periodSeriousOption(report.periods, labels, texts(t('chart.bySeriousAria', { period: t(`periodWord.${period}`) }))),
      terms: rankedGradeOption(report.topTerms, termLabels, texts(t('chart.termsAria', { n: report.topTerms.length }))),
      sites: rankedGradeOption(report.sites, siteLabels, texts(t('chart.sitesAria'))),
    };
    // the language is part of every text: charts are rebuilt when it changes
  }, [report, period, t, i18n.language]);
  const empty = <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('chart.noData')} />;
  return (
    <Row gutter={[12, 12]}>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('chart.byGrade', { period: t(`periodWord.${period}`) })}>
          {report.periods.length ? <EChart option={charts.byGrade} height={PERIOD_HEIGHT} label={t('chart.byGrade', { period: t(`periodWord.${period}`) })} testId="signal-chart-grade" /> : empty}
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('chart.bySerious', { period: t(`periodWord.${period}`) })}>
          {report.periods.length ? <EChart option={charts.bySerious} height={PERIOD_HEIGHT} label={t('chart.bySerious', { period: t(`periodWord.${period}`) })} testId="signal-chart-serious" /> : empty}
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('chart.terms', { n: report.topTerms.length })}>
          {report.topTerms.length ? <EChart option={charts.terms} height={rankedHeight(report.topTerms.length)} label={t('chart.terms', { n: report.topTerms.length })} testId="signal-chart-terms" /> : empty}
        </Card>
      </Col>
      <Col xs={24} xl={12}>
        <Card size="small" title={t('chart.sites')}>
          {report.sites.length ? <EChart option={charts.sites} height={rankedHeight(report.sites.length)} label={t('chart.sites')} testId="signal-chart-sites" /> : empty}
        </Card>
      </Col>
    </Row>
  );
}
