import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import { HISTORY_RANGES, type HistoryRange } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { inputValue } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { IncidentTableComponent } from './incident-table.component';
import { INCIDENT_STATES, type IncidentQuery, type IncidentState } from './incidents.api';
import { IncidentsStore } from './incidents.store';
import { parseRange, rangeLabel } from './ranges';

const DEFAULT_LIMIT = 50;
const LIMITS = [20, 50, 100, 200, 500, 1000] as const;
const TEXT_DELAY_MS = 300;

/** The filters as the URL holds them (every one optional). */
interface Filters {
  readonly state: IncidentState;
  readonly range: HistoryRange | undefined;
  readonly sensor: number | undefined;
  readonly q: string;
  readonly limit: number;
}

/**
 * `/incidents`: every outage, newest first, filtered by state, time range, sensor and text. The
 * filters live in the query string (`?state=open&range=7d&sensor=3&q=timeout&limit=100`), so a
 * filtered list can be bookmarked and shared. Operators and administrators acknowledge here.
 */
@Component({
  selector: 'app-incidents-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    RouterLink,
    TranslocoPipe,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    IncidentTableComponent,
  ],
  providers: [IncidentsStore],
  templateUrl: './incidents-page.component.html',
  styleUrl: './incidents-page.component.css',
})
export class IncidentsPageComponent {
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly session = inject(SessionStore);
  protected readonly store = inject(IncidentsStore);

  /** Query parameters (bound by the router). */
  readonly state = input<string>();
  readonly range = input<string>();
  readonly sensor = input<string>();
  readonly q = input<string>();
  readonly limit = input<string>();

  protected readonly stateOptions = computed(() =>
    INCIDENT_STATES.map((state) => ({ state, label: t(`incidents.state.${state}`) })),
  );
  protected readonly rangeOptions = computed(() =>
    HISTORY_RANGES.filter((range) => range !== 'all').map((range) => ({
      range,
      label: rangeLabel(range, 'option'),
    })),
  );

  protected readonly canAcknowledge = computed(() => hasRole(this.session.role(), 'operator'));

  protected readonly filters = computed<Filters>(() => {
    const state = INCIDENT_STATES.find((entry) => entry === this.state()) ?? 'all';
    const sensor = /^[0-9]{1,15}$/.test(this.sensor() ?? '') ? Number(this.sensor()) : undefined;
    const limit = Number(this.limit());
    return {
      state,
      range: parseRange(this.range()),
      sensor,
      q: this.q() ?? '',
      limit: Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? limit : DEFAULT_LIMIT,
    };
  });

  /** The limits offered, including one that came in through the URL. */
  protected readonly limits = computed(() => {
    const current = this.filters().limit;
    return LIMITS.some((limit) => limit === current) ? LIMITS : [...LIMITS, current].sort((a, b) => a - b);
  });

  /** The text box as typed; it leads the URL by up to {@link TEXT_DELAY_MS}. */
  protected readonly text = signal('');
  private textTimer: ReturnType<typeof setTimeout> | undefined;

  protected readonly summary = computed(() => {
    const list = this.store.incidents();
    if (!list) return '';
    const { limit } = this.filters();
    const count = list.length;
    return count >= limit
      ? t('incidents.list.countLimited', { count, limit })
      : t('incidents.list.count', { count });
  });

  protected readonly filtered = computed(() => {
    const { state, range, sensor, q } = this.filters();
    return state !== 'all' || range !== undefined || sensor !== undefined || q !== '';
  });

  constructor() {
    void this.store.loadSensors();
    effect(() => {
      const { state, range, sensor, q, limit } = this.filters();
      const query: IncidentQuery = { state, range, sensor, q: q.trim() || undefined, limit };
      untracked(() => {
        // The URL changed from outside (a link, the search box, back): show its text.
        if (this.textTimer === undefined) this.text.set(q);
        void this.store.load(query);
      });
    });
    inject(DestroyRef).onDestroy(() => clearTimeout(this.textTimer));
  }

  protected setState(event: Event): void {
    this.apply({ state: (INCIDENT_STATES.find((s) => s === inputValue(event)) ?? 'all') as IncidentState });
  }

  protected setRange(event: Event): void {
    this.apply({ range: parseRange(inputValue(event)) });
  }

  protected setSensor(event: Event): void {
    const value = inputValue(event);
    this.apply({ sensor: value === '' ? undefined : Number(value) });
  }

  protected setLimit(event: Event): void {
    this.apply({ limit: Number(inputValue(event)) });
  }

  protected typed(event: Event): void {
    this.text.set(inputValue(event));
    clearTimeout(this.textTimer);
    this.textTimer = setTimeout(() => {
      this.textTimer = undefined;
      this.apply({ q: this.text() });
    }, TEXT_DELAY_MS);
  }

  /** Enter in the text box applies it at once. */
  protected submit(event: Event): void {
    event.preventDefault();
    clearTimeout(this.textTimer);
    this.textTimer = undefined;
    this.apply({ q: this.text() });
  }

  protected isSelectedSensor(id: number): boolean {
    return this.filters().sensor === id;
  }

  private apply(change: Partial<Filters>): void {
    const next = { ...this.filters(), ...change };
    const queryParams: Record<string, string> = {};
    if (next.state !== 'all') queryParams['state'] = next.state;
    if (next.range) queryParams['range'] = next.range;
    if (next.sensor !== undefined) queryParams['sensor'] = String(next.sensor);
    if (next.q !== '') queryParams['q'] = next.q;
    if (next.limit !== DEFAULT_LIMIT) queryParams['limit'] = String(next.limit);
    void this.router.navigate([], { relativeTo: this.route, queryParams, replaceUrl: true });
  }
}
