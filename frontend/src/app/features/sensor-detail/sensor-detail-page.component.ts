import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  untracked,
} from '@angular/core';
import { Title } from '@angular/platform-browser';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import { HISTORY_RANGES, type HistoryRange, type HistoryTier, type UptimeResponse } from '@monitor/contracts';

import { formatNumber, formatPercent, formatMs } from '../../core/i18n/format';
import { t } from '../../core/i18n/i18n';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { PRODUCT_NAME } from '../../core/title/page-title.strategy';
import { formatDuration, isoDuration } from '../../shared/format/duration';
import { inputValue } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { IncidentTableComponent } from '../incidents/incident-table.component';
import { parseRange, rangeLabel } from '../incidents/ranges';
import { HistoryChartComponent } from './history-chart.component';
import { formatLatency } from '../../shared/format/latency';
import { RecentResultsComponent } from './recent-results.component';
import { SensorDetailStore } from './sensor-detail.store';
import { statusDisplay } from '../../shared/format/sensor-status';

const DEFAULT_RANGE: HistoryRange = '24h';

const TIERS: readonly HistoryTier[] = ['raw', 'hourly', 'daily'];

/**
 * `/sensors/:id`: one sensor's state, its history over a chosen range (`?range=7d`, default 24h) as
 * charts and figures, its latest results and its incidents. Operators and administrators run a
 * probe on demand and acknowledge incidents here.
 */
@Component({
  selector: 'app-sensor-detail-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    RouterLink,
    TranslocoPipe,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    IncidentTableComponent,
    HistoryChartComponent,
    RecentResultsComponent,
  ],
  providers: [SensorDetailStore],
  templateUrl: './sensor-detail-page.component.html',
  styleUrl: './sensor-detail-page.component.css',
})
export class SensorDetailPageComponent {
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly session = inject(SessionStore);
  protected readonly store = inject(SensorDetailStore);

  /** Path parameter. */
  readonly id = input.required<string>();
  /** Query parameter. */
  readonly range = input<string>();

  protected readonly rangeOptions = computed(() =>
    HISTORY_RANGES.map((range) => ({
      range,
      short: rangeLabel(range, 'short'),
      long: rangeLabel(range, 'long'),
    })),
  );
  protected readonly canOperate = computed(() => hasRole(this.session.role(), 'operator'));
  protected readonly isAdmin = this.session.isAdmin;

  protected readonly sensorId = computed(() => {
    const id = this.id();
    return /^[0-9]{1,15}$/.test(id) ? Number(id) : undefined;
  });
  protected readonly chosenRange = computed(() => parseRange(this.range()) ?? DEFAULT_RANGE);

  protected readonly header = computed(() => {
    const sensor = this.store.sensor.value();
    if (!sensor) return undefined;
    return { sensor, display: statusDisplay(sensor.status) };
  });

  protected readonly figures = computed(() => {
    const uptime = this.store.uptime.value();
    return uptime ? describeUptime(uptime) : undefined;
  });

  protected readonly probeText = computed(() => {
    const result = this.store.probe();
    if (!result) return '';
    const parts = [t(result.success ? 'sensorDetail.probe.ok' : 'sensorDetail.probe.fail')];
    if (result.status_code !== null)
      parts.push(t('sensorDetail.probe.statusCode', { code: result.status_code }));
    if (result.latency_ms !== null) parts.push(formatMs(result.latency_ms));
    const facts = parts.join(', ');
    return result.message
      ? t('sensorDetail.probe.lastWithMessage', { facts, message: result.message })
      : t('sensorDetail.probe.last', { facts });
  });

  constructor() {
    let shownId: number | undefined;
    effect(() => {
      const id = this.sensorId();
      const range = this.chosenRange();
      untracked(() => {
        if (id === undefined) return;
        // A new sensor clears everything; a new range keeps the charts until the answer arrives.
        const opened = id !== shownId;
        if (opened) this.store.open(id);
        this.store.showRange(range, opened);
        shownId = id;
      });
    });
    // After the router's "Sensor" title (which every range change sets again): the sensor's name.
    const title = inject(Title);
    effect(() => {
      const name = this.store.sensor.value()?.name;
      this.chosenRange();
      if (name) untracked(() => title.setTitle(`${name} · ${PRODUCT_NAME}`));
    });
  }

  protected chooseRange(event: Event): void {
    const range = parseRange(inputValue(event));
    if (!range) return;
    void this.router.navigate([], {
      relativeTo: this.route,
      queryParams: { range: range === DEFAULT_RANGE ? null : range },
      queryParamsHandling: 'merge',
      replaceUrl: true,
    });
  }
}

function describeUptime(response: UptimeResponse) {
  const { uptime, latency, incidents, downtime, tier } = response;
  const ms = (value: number | null) => (value === null ? '—' : formatLatency(value));
  return {
    uptime: uptime.percent === null ? t('sensorDetail.figures.noData') : formatPercent(uptime.percent, 2),
    samples:
      uptime.count === 0 ? '' : t('sensorDetail.figures.samples', { up: uptime.up, count: uptime.count }),
    average: ms(latency.avg_ms),
    minMax: latency.min_ms === null ? '—' : `${ms(latency.min_ms)} / ${ms(latency.max_ms)}`,
    incidents: formatNumber(incidents.count),
    downtime: formatDuration(downtime.seconds),
    downtimeIso: isoDuration(downtime.seconds),
    tier: TIERS.includes(tier) ? t(`sensorDetail.tier.${tier}`) : tier,
    from: response.from,
    to: response.to,
  };
}
