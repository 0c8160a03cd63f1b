import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  ViewEncapsulation,
  afterRenderEffect,
  computed,
  inject,
  input,
  viewChild,
} from '@angular/core';
import type { SeriesResponse } from '@monitor/contracts';
import uPlot from 'uplot';

import { formatPercent } from '../../core/i18n/format';
import { t } from '../../core/i18n/i18n';
import { formatLatency } from '../../shared/format/latency';

export type ChartKind = 'latency' | 'uptime';

/** Design tokens of the page, read once per drawing (a canvas cannot use CSS variables). */
interface Palette {
  readonly text: string;
  readonly grid: string;
  readonly accent: string;
  readonly success: string;
}

const SHOW_POINTS_UP_TO = 150;

/**
 * A time-series chart of one sensor's history (uPlot on a canvas): latency (average line with the
 * min–max band) or uptime per bucket. Empty buckets are gaps, never zero. The chart is a picture:
 * a text summary next to it says what it shows.
 */
@Component({
  selector: 'app-history-chart',
  changeDetection: ChangeDetectionStrategy.OnPush,
  // uPlot builds its own elements; its stylesheet and ours must reach them unscoped.
  encapsulation: ViewEncapsulation.None,
  template: `
    <figure class="history-chart" [attr.data-testid]="'chart-' + kind()" [attr.data-points]="filled()">
      <figcaption class="chart-caption">
        <span class="chart-title">{{ title() }}</span>
        <span class="chart-summary">{{ summary() }}</span>
      </figcaption>
      <div #plot class="chart-plot" aria-hidden="true"></div>
    </figure>
  `,
  styleUrl: './history-chart.component.css',
})
export class HistoryChartComponent {
  readonly kind = input.required<ChartKind>();
  readonly series = input.required<SeriesResponse>();

  private readonly plot = viewChild.required<ElementRef<HTMLElement>>('plot');
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private chart: uPlot | undefined;
  private resizer: ResizeObserver | undefined;
  private frame: number | undefined;

  protected readonly title = computed(() =>
    t(this.kind() === 'latency' ? 'sensorDetail.chart.latency' : 'sensorDetail.chart.uptime'),
  );

  /** Buckets that hold samples. */
  protected readonly filled = computed(() => this.series().points.filter((point) => point.count > 0).length);

  protected readonly summary = computed(() => {
    const { points } = this.series();
    const filled = this.filled();
    if (filled === 0) return t('sensorDetail.chart.noSamples');
    const gaps = points.length - filled;
    const latency = this.kind() === 'latency';
    const values = points
      .map((point) => (latency ? point.avg_ms : point.uptime))
      .filter((value): value is number => value !== null);
    // Latency is measured on successful probes only.
    if (values.length === 0) return t('sensorDetail.chart.summaryNoSuccess', { filled, gaps });
    const format = latency ? formatLatency : (value: number) => formatPercent(value, 1);
    const min = format(Math.min(...values));
    const max = format(Math.max(...values));
    return t(latency ? 'sensorDetail.chart.summaryLatency' : 'sensorDetail.chart.summaryUptime', {
      filled,
      gaps,
      min,
      max,
    });
  });

  constructor() {
    afterRenderEffect({ write: () => this.draw(this.series(), this.kind()) });
    inject(DestroyRef).onDestroy(() => {
      this.resizer?.disconnect();
      if (this.frame !== undefined) cancelAnimationFrame(this.frame);
      this.chart?.destroy();
      this.chart = undefined;
    });
  }

  private draw(series: SeriesResponse, kind: ChartKind): void {
    const target = this.plot().nativeElement;
    this.chart?.destroy();
    const palette = this.palette();
    const xs = series.points.map((point) => Date.parse(point.ts) / 1000);
    const from = Date.parse(series.from) / 1000;
    const to = Date.parse(series.to) / 1000;
    const showPoints = series.points.length <= SHOW_POINTS_UP_TO;
    const { width, height } = this.size(target);

    const options: uPlot.Options = {
      width,
      height,
      padding: [12, 12, 0, 4],
      cursor: { drag: { x: false, y: false } },
      legend: { live: true },
      scales: {
        x: { time: true, auto: false, range: [from, Math.max(to, from + 1)] },
        y:
          kind === 'uptime'
            ? { auto: false, range: [0, 100] }
            : { range: (_u, _min, max) => [0, Number.isFinite(max) && max > 0 ? Math.ceil(max * 1.1) : 100] },
      },
      axes: [
        {
          stroke: palette.text,
          grid: { stroke: palette.grid, width: 1 },
          ticks: { stroke: palette.grid },
          values: (_u, splits, _axis, _space, increment) => timeTicks(splits, increment),
        },
        {
          stroke: palette.text,
          grid: { stroke: palette.grid, width: 1 },
          ticks: { stroke: palette.grid },
          size: 56,
          values: (_u, splits) =>
            splits.map((value) => (kind === 'uptime' ? formatPercent(value, 1) : formatLatency(value))),
        },
      ],
      series: [{ label: t('sensorDetail.chart.time') }],
    };

    let data: uPlot.AlignedData;
    if (kind === 'uptime') {
      options.series.push({
        label: t('sensorDetail.chart.uptime'),
        stroke: palette.success,
        fill: withAlpha(palette.success, 0.15),
        width: 2,
        points: { show: showPoints, size: 5, fill: palette.success, filter: isolated },
        value: (_u, value) => (value == null ? '—' : formatPercent(value, 1)),
      });
      data = [xs, series.points.map((point) => point.uptime)];
    } else {
      const ms = (_u: uPlot, value: number | null) => (value == null ? '—' : formatLatency(value));
      const edge = withAlpha(palette.accent, 0.35);
      options.series.push(
        { label: t('sensorDetail.chart.max'), stroke: edge, width: 1, points: { show: false }, value: ms },
        { label: t('sensorDetail.chart.min'), stroke: edge, width: 1, points: { show: false }, value: ms },
        {
          label: t('sensorDetail.chart.average'),
          stroke: palette.accent,
          width: 2,
          points: { show: showPoints, size: 4, fill: palette.accent, filter: isolated },
          value: ms,
        },
      );
      options.bands = [{ series: [1, 2], fill: withAlpha(palette.accent, 0.15) }];
      data = [
        xs,
        series.points.map((point) => point.max_ms),
        series.points.map((point) => point.min_ms),
        series.points.map((point) => point.avg_ms),
      ];
    }

    this.chart = new uPlot(options, data, target);
    this.watchSize(target);
  }

  private watchSize(target: HTMLElement): void {
    if (this.resizer || typeof ResizeObserver === 'undefined') return;
    // Resized in the next frame: resizing inside the observer's callback would notify it again.
    this.resizer = new ResizeObserver(() => {
      if (this.frame !== undefined) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = undefined;
        const chart = this.chart;
        if (!chart) return;
        const size = this.size(target);
        if (size.width !== chart.width || size.height !== chart.height) chart.setSize(size);
      });
    });
    this.resizer.observe(target);
  }

  private size(target: HTMLElement): { width: number; height: number } {
    const width = Math.max(240, Math.floor(target.clientWidth));
    return { width, height: width < 500 ? 180 : 220 };
  }

  private palette(): Palette {
    const style = getComputedStyle(this.host.nativeElement);
    const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    return {
      text: token('--text-muted', '#57606a'),
      grid: token('--border', '#d9dee4'),
      accent: token('--accent', '#0b62c2'),
      success: token('--success', '#1a7f37'),
    };
  }
}

/**
 * Where points are not drawn (too many), the values between two gaps still get one: a line needs
 * two neighbours, so an isolated bucket would not show at all.
 */
function isolated(chart: uPlot, seriesIndex: number, shown: boolean): number[] | null {
  if (shown) return null;
  const values = chart.data[seriesIndex];
  const indices: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] != null && values[i - 1] == null && values[i + 1] == null) indices.push(i);
  }
  return indices.length > 0 ? indices : null;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** Tick labels in the 24-hour clock the tables use: times, the date at midnight, dates for days. */
function timeTicks(splits: number[], increment: number): string[] {
  return splits.map((seconds) => {
    const date = new Date(seconds * 1000);
    const day = `${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
    if (increment >= 28 * 86_400) return `${date.getFullYear()}-${pad(date.getMonth() + 1)}`;
    if (increment >= 86_400 || (date.getHours() === 0 && date.getMinutes() === 0)) return day;
    return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  });
}

/** `#rrggbb` with an alpha channel; other colours are returned unchanged. */
function withAlpha(color: string, alpha: number): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match) return color;
  const [r, g, b] = match.slice(1).map((hex) => parseInt(hex, 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}
