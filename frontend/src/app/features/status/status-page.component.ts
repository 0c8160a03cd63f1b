import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { HealthStatus } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { loadable } from '../../core/api/loadable';
import { CLOCK } from '../../core/browser/clock';
import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { formatDuration, isoDuration } from '../../shared/format/duration';
import { isShortcut } from '../../shared/keyboard/text-field';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import type { LiveConnectionState } from '../../core/live/live-events.service';
import { FirstSensorComponent } from './first-sensor.component';
import { SensorGridComponent } from './sensor-grid.component';
import { StatusSensorsStore } from './status-sensors.store';

/**
 * `/`: the health of the monitor service itself, from `GET /healthz`, and the sensors with their
 * status, kept current by the live event stream (see {@link StatusSensorsStore}).
 */
@Component({
  selector: 'app-status-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    RouterLink,
    TranslocoPipe,
    ErrorAlertComponent,
    FirstSensorComponent,
    LoadingIndicatorComponent,
    SensorGridComponent,
  ],
  providers: [StatusSensorsStore],
  host: { '(document:keydown)': 'shortcut($event)' },
  template: `
    <div class="page-heading">
      <h1>{{ 'status.page.heading' | transloco }}</h1>
      <div class="actions">
        <button type="button" class="button" [disabled]="health.loading()" (click)="refresh()">
          {{ (health.loading() ? 'status.health.checking' : 'status.health.checkAgain') | transloco }}
        </button>
        @if (canCreate()) {
          <a
            class="button button-primary"
            routerLink="/sensors/new"
            aria-keyshortcuts="n"
            [title]="'status.add.shortcut' | transloco"
            data-testid="add-sensor"
            data-tour="add-sensor"
            >{{ 'status.add.label' | transloco }}</a
          >
        }
      </div>
    </div>

    @if (health.error(); as error) {
      <app-error-alert
        [heading]="'status.health.failed' | transloco"
        [message]="error.message"
        (retry)="refresh()"
      />
    } @else if (view(); as shown) {
      <section class="panel" aria-labelledby="health-heading" data-testid="status-panel">
        <h2 id="health-heading" class="visually-hidden">{{ 'status.health.heading' | transloco }}</h2>
        <p class="health" [class.health-ok]="shown.ok" [class.health-bad]="!shown.ok">
          <span class="health-icon" aria-hidden="true">{{ shown.ok ? '✓' : '!' }}</span>
          <span>{{ (shown.ok ? 'status.health.ok' : 'status.health.bad') | transloco }}</span>
        </p>
        <dl class="facts">
          <div>
            <dt>{{ 'status.health.status' | transloco }}</dt>
            <dd data-testid="status-status">{{ shown.status }}</dd>
          </div>
          <div>
            <dt>{{ 'status.health.version' | transloco }}</dt>
            <dd data-testid="status-version">{{ shown.version }}</dd>
          </div>
          <div>
            <dt>{{ 'status.health.uptime' | transloco }}</dt>
            <dd data-testid="status-uptime">
              <time [attr.datetime]="shown.uptimeIso">{{ shown.uptime }}</time>
            </dd>
          </div>
        </dl>
        <p class="checked">
          {{ 'status.health.checkedAt' | transloco }}
          <time [attr.datetime]="shown.checkedAtIso">{{ shown.checkedAt | date: 'HH:mm:ss' }}</time>
        </p>
      </section>
    } @else {
      <app-loading-indicator [label]="'status.health.loading' | transloco" />
    }

    <section class="panel sensors" aria-labelledby="sensors-heading">
      <div class="sensors-heading">
        <h2 id="sensors-heading">{{ 'status.sensors.heading' | transloco }}</h2>
        <p class="live-state" data-testid="live-state" [attr.data-state]="liveState()">
          {{ liveLabel() }}
        </p>
      </div>
      <p class="visually-hidden" role="status" data-testid="status-announcement">
        {{ sensors.announcement() }}
      </p>
      @if (sensors.error(); as error) {
        <app-error-alert
          [heading]="
            (sensors.rows() ? 'status.sensors.refreshFailed' : 'status.sensors.loadFailed') | transloco
          "
          [message]="error.message"
          (retry)="sensors.refresh()"
        />
      }
      @if (sensors.rows(); as rows) {
        @if (rows.length === 0) {
          <app-first-sensor (loaded)="sensors.refresh()" />
        } @else {
          <app-sensor-grid [rows]="rows" [highlight]="highlight()" />
        }
      } @else if (!sensors.error()) {
        <app-loading-indicator [label]="'status.sensors.loading' | transloco" />
      }
    </section>
  `,
  styles: `
    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }
    .health {
      display: flex;
      align-items: center;
      gap: 0.6rem;
      margin: 0 0 1.25rem;
      font-size: 1.15rem;
      font-weight: 600;
    }
    .health-icon {
      display: grid;
      place-items: center;
      inline-size: 1.75rem;
      block-size: 1.75rem;
      border-radius: 50%;
      font-size: 1rem;
      line-height: 1;
    }
    .health-ok .health-icon {
      background: var(--success);
      color: var(--on-success);
    }
    .health-bad .health-icon {
      background: var(--danger);
      color: var(--on-danger);
    }
    .checked {
      margin: 1.25rem 0 0;
      color: var(--text-muted);
      font-size: 0.9rem;
    }
    .sensors {
      margin-block-start: 1.25rem;
    }
    .sensors-heading {
      display: flex;
      flex-wrap: wrap;
      align-items: baseline;
      justify-content: space-between;
      gap: 0.25rem 1rem;
    }
    .sensors-heading h2 {
      margin: 0;
    }
    .live-state {
      margin: 0;
      color: var(--text-muted);
      font-size: 0.9rem;
    }
  `,
})
export class StatusPageComponent {
  private readonly api = inject(ApiClient);
  private readonly now = inject(CLOCK);
  private readonly router = inject(Router);
  private readonly session = inject(SessionStore);
  private readonly params = toSignal(inject(ActivatedRoute).queryParamMap);

  /** Only administrators may create sensors (role rules). */
  protected readonly canCreate = computed(() => this.session.isAdmin());
  /** `?highlight=<id>`: the sensor the editor just created, marked for a moment. */
  protected readonly highlight = computed(() => {
    const id = this.params()?.get('highlight') ?? '';
    return /^[0-9]{1,15}$/.test(id) ? Number(id) : undefined;
  });

  protected readonly health = loadable(() => this.check());
  protected readonly sensors = inject(StatusSensorsStore);

  protected readonly liveState = computed((): LiveConnectionState | 'disabled' =>
    this.sensors.liveEnabled() ? this.sensors.liveState() : 'disabled',
  );
  protected readonly liveLabel = computed(() => t(`status.live.${this.liveState()}`));

  protected readonly view = computed(() => {
    const checked = this.health.value();
    if (!checked) return undefined;
    const { health, checkedAt } = checked;
    const ok = health.status === 'ok';
    return {
      ok,
      status: health.status,
      version: health.version,
      uptime: formatDuration(health.uptime),
      uptimeIso: isoDuration(health.uptime),
      checkedAt,
      checkedAtIso: checkedAt.toISOString(),
    };
  });

  /** `n` (outside text fields) opens the editor for a new sensor, like the Add sensor button. */
  protected shortcut(event: KeyboardEvent): void {
    if (!this.canCreate() || !isShortcut(event, 'n')) return;
    event.preventDefault();
    void this.router.navigateByUrl('/sensors/new');
  }

  protected refresh(): void {
    this.health.reload();
    this.sensors.refresh();
  }

  private async check(): Promise<{ health: HealthStatus; checkedAt: Date }> {
    const health = await this.api.get<HealthStatus>('/healthz');
    return { health, checkedAt: this.now() };
  }
}
