/**
 * A thin React wrapper of Apache ECharts: only the bar chart, grid, legend, tooltip and aria parts are registered
 * (echarts/core), and this file is imported only by lazily loaded report pages (the signal report, /project/reports),
 * so none of it reaches the main bundle. The chart follows its container's size and is disposed with the component.
 */
import { useEffect, useRef, useState } from 'react';
import { init, use, type ComposeOption, type ECharts } from 'echarts/core';
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import {
  AriaComponent,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  type AriaComponentOption,
  type GridComponentOption,
  type LegendComponentOption,
  type TooltipComponentOption,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

use([BarChart, GridComponent, LegendComponent, TooltipComponent, AriaComponent, CanvasRenderer]);

export type ChartOption = ComposeOption<BarSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption | AriaComponentOption>;

export function EChart({ option, height, label, testId }: { option: ChartOption; height: number; label: string; testId?: string }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const node = el.current;
    if (!node) return undefined;
    const c = init(node, undefined, { renderer: 'canvas' });
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(node);
    return () => {
      ro.disconnect();
      c.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    // a new report replaces the whole chart (series of a grade no longer present must not linger)
    chart.current?.setOption(option, { notMerge: true });
    setDrawn(true);
  }, [option]);

  return <div ref={el} style={{ height, width: '100%' }} role="img" aria-label={label} data-testid={testId} data-drawn={drawn ? 'true' : 'false'} />;
}
