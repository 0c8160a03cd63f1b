import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { SparkPoint } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';

const WIDTH = 96;
const HEIGHT = 28;
const PAD = 3;

/**
 * The latency of the most recent results as a small inline SVG line; failed results are marked
 * with a cross on the baseline (a shape, not only a colour). The summary is given in words too.
 */
@Component({
  selector: 'app-sparkline',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <svg
      [attr.viewBox]="'0 0 ' + width + ' ' + height"
      [attr.width]="width"
      [attr.height]="height"
      role="img"
      [attr.aria-label]="shape().label"
      data-testid="sensor-sparkline"
    >
      <title>{{ shape().label }}</title>
      @if (shape().line) {
        <polyline class="line" [attr.points]="shape().line" />
      }
      @for (cross of shape().failures; track $index) {
        <path class="fail" [attr.d]="cross" />
      }
    </svg>
  `,
  styles: `
    :host {
      display: inline-flex;
    }
    svg {
      overflow: visible;
    }
    .line {
      fill: none;
      stroke: var(--accent);
      stroke-width: 1.5;
      stroke-linejoin: round;
    }
    .fail {
      stroke: var(--danger);
      stroke-width: 2;
    }
  `,
})
export class SparklineComponent {
  readonly points = input.required<readonly SparkPoint[]>();
  protected readonly width = WIDTH;
  protected readonly height = HEIGHT;

  protected readonly shape = computed(() => {
    const points = this.points();
    const failed = points.filter((point) => !point.success).length;
    const label =
      points.length === 0
        ? t('status.sparkline.empty')
        : t('status.sparkline.label', { count: points.length, failed });
    const latencies = points.map((point) => point.latency_ms).filter((ms): ms is number => ms !== null);
    const max = Math.max(1, ...latencies);
    const step = points.length > 1 ? (WIDTH - 2 * PAD) / (points.length - 1) : 0;
    const x = (index: number) => PAD + index * step;
    const y = (ms: number) => HEIGHT - PAD - (ms / max) * (HEIGHT - 2 * PAD);
    const line = points
      .map((point, index) =>
        point.success && point.latency_ms !== null
          ? `${x(index).toFixed(1)},${y(point.latency_ms).toFixed(1)}`
          : '',
      )
      .filter((pair) => pair !== '')
      .join(' ');
    const failures = points.flatMap((point, index) => {
      if (point.success) return [];
      const cx = x(index);
      const cy = HEIGHT - PAD;
      return [
        `M${cx - 2.5},${cy - 2.5}L${cx + 2.5},${cy + 2.5}M${cx - 2.5},${cy + 2.5}L${cx + 2.5},${cy - 2.5}`,
      ];
    });
    return { label, line, failures };
  });
}
