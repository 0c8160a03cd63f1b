import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { HealthStatus, Sensor } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { loadable } from '../../core/api/loadable';
import { CLOCK } from '../../core/browser/clock';
import { formatDuration, isoDuration } from '../../shared/format/duration';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { STATUS_DISPLAY } from '../sensor-detail/sensor-status';

/** `/`: the health of the monitor service itself, from `GET /healthz`. */
@Component({
  selector: 'app-status-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, RouterLink, ErrorAlertComponent, LoadingIndicatorComponent],
  template: `
    <div class="page-heading">
      <h1>Status</h1>
      <button type="button" class="button" [disabled]="health.loading()" (click)="refresh()">
        {{ health.loading() ? 'Checking…' : 'Check again' }}
      </button>
    </div>

    @if (health.error(); as error) {
      <app-error-alert
        heading="The service health could not be read"
        [message]="error.message"
        (retry)="refresh()"
      />
    } @else if (view(); as shown) {
      <section class="panel" aria-labelledby="health-heading" data-testid="status-panel">
        <h2 id="health-heading" class="visually-hidden">Service health</h2>
        <p class="health" [class.health-ok]="shown.ok" [class.health-bad]="!shown.ok">
          <span class="health-icon" aria-hidden="true">{{ shown.ok ? '✓' : '!' }}</span>
          <span>{{ shown.summary }}</span>
        </p>
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd data-testid="status-status">{{ shown.status }}</dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd data-testid="status-version">{{ shown.version }}</dd>
          </div>
          <div>
            <dt>Uptime</dt>
            <dd data-testid="status-uptime">
              <time [attr.datetime]="shown.uptimeIso">{{ shown.uptime }}</time>
            </dd>
          </div>
        </dl>
        <p class="checked">
          Checked at
          <time [attr.datetime]="shown.checkedAtIso">{{ shown.checkedAt | date: 'HH:mm:ss' }}</time>
        </p>
      </section>
    } @else {
      <app-loading-indicator label="Checking the service…" />
    }

    <section class="panel sensors" aria-labelledby="sensors-heading">
      <h2 id="sensors-heading">Sensors</h2>
      @if (sensors.error(); as error) {
        <app-error-alert
          heading="The sensors could not be loaded"
          [message]="error.message"
          (retry)="sensors.reload()"
        />
      } @else if (sensors.value(); as list) {
        @if (list.length === 0) {
          <p class="checked">No sensors yet.</p>
        } @else {
          <ul class="sensor-list" data-testid="sensor-list">
            @for (sensor of list; track sensor.id) {
              <li>
                <a [routerLink]="['/sensors', sensor.id]">{{ sensor.name }}</a>
                <span class="sensor-status" [attr.data-status]="sensor.status">
                  <span aria-hidden="true">{{ statusDisplay[sensor.status].symbol }} </span>
                  {{ statusDisplay[sensor.status].label }}
                </span>
              </li>
            }
          </ul>
        }
      } @else {
        <app-loading-indicator label="Loading the sensors…" />
      }
    </section>
  `,
  styles: `
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
    .sensor-list {
      display: grid;
      gap: 0.4rem;
      margin: 0.75rem 0 0;
      padding: 0;
      list-style: none;
    }
    .sensor-list li {
      display: flex;
      flex-wrap: wrap;
      justify-content: space-between;
      gap: 0.25rem 1rem;
      padding-block: 0.35rem;
      border-block-end: 1px solid var(--border);
      overflow-wrap: anywhere;
    }
    .sensor-status {
      color: var(--text-muted);
    }
  `,
})
export class StatusPageComponent {
  private readonly api = inject(ApiClient);
  private readonly now = inject(CLOCK);

  protected readonly health = loadable(() => this.check());
  protected readonly sensors = loadable(() => this.api.get<Sensor[]>('/api/sensors'));
  protected readonly statusDisplay = STATUS_DISPLAY;

  protected readonly view = computed(() => {
    const checked = this.health.value();
    if (!checked) return undefined;
    const { health, checkedAt } = checked;
    const ok = health.status === 'ok';
    return {
      ok,
      summary: ok ? 'The service is running' : 'The service reports a problem',
      status: health.status,
      version: health.version,
      uptime: formatDuration(health.uptime),
      uptimeIso: isoDuration(health.uptime),
      checkedAt,
      checkedAtIso: checkedAt.toISOString(),
    };
  });

  protected refresh(): void {
    this.health.reload();
    this.sensors.reload();
  }

  private async check(): Promise<{ health: HealthStatus; checkedAt: Date }> {
    const health = await this.api.get<HealthStatus>('/healthz');
    return { health, checkedAt: this.now() };
  }
}
