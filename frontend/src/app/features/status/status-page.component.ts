import { NgTemplateOutlet } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { isShortcut } from '../../shared/keyboard/text-field';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import type { LiveConnectionState } from '../../core/live/live-events.service';
import { FirstSensorComponent } from './first-sensor.component';
import { SensorGridComponent } from './sensor-grid.component';
import { StatusPreferences } from './status-preferences';
import { StatusSensorsStore } from './status-sensors.store';

/**
 * `/`: the sensors with their status, kept current by the live event stream (see
 * {@link StatusSensorsStore}), in the account's density and order; the first-sensor help when there
 * are none.
 */
@Component({
  selector: 'app-status-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    NgTemplateOutlet,
    RouterLink,
    TranslocoPipe,
    ErrorAlertComponent,
    FirstSensorComponent,
    LoadingIndicatorComponent,
    SensorGridComponent,
  ],
  providers: [StatusSensorsStore, StatusPreferences],
  host: { '(document:keydown)': 'shortcut($event)' },
  template: `
    <ng-template #heading>
      <h1 class="title">{{ 'status.page.heading' | transloco }}</h1>
      <p class="live-state" data-testid="live-state" [attr.data-state]="liveState()">
        {{ liveLabel() }}
      </p>
      @if (canCreate()) {
        <a
          class="button button-primary add"
          routerLink="/sensors/new"
          aria-keyshortcuts="n"
          [title]="'status.add.shortcut' | transloco"
          data-testid="add-sensor"
          data-tour="add-sensor"
          >{{ 'status.add.label' | transloco }}</a
        >
      }
    </ng-template>

    <section class="sensors" aria-labelledby="sensors-heading">
      <h2 id="sensors-heading" class="visually-hidden">{{ 'status.sensors.heading' | transloco }}</h2>
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
      @if (!sensors.rows()?.length) {
        <div class="heading"><ng-container *ngTemplateOutlet="heading" /></div>
      }
      @if (sensors.rows(); as rows) {
        @if (rows.length === 0) {
          <app-first-sensor (loaded)="sensors.refresh()" />
        } @else {
          <app-sensor-grid [rows]="rows" [highlight]="highlight()">
            <ng-container *ngTemplateOutlet="heading" />
          </app-sensor-grid>
        }
      } @else if (!sensors.error()) {
        <app-loading-indicator [label]="'status.sensors.loading' | transloco" />
      }
    </section>
  `,
  styles: `
    :host {
      display: block;
      margin-block-start: -0.5rem;
    }
    .heading {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.4rem 0.75rem;
      margin-block-end: 0.5rem;
    }
    .title {
      margin: 0;
      order: 0;
    }
    .live-state {
      order: 1;
      margin: 0;
      color: var(--text-muted);
      font-size: 0.85rem;
    }
    .add {
      order: 3;
      margin-inline-start: auto;
    }
  `,
})
export class StatusPageComponent {
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

  protected readonly sensors = inject(StatusSensorsStore);

  protected readonly liveState = computed((): LiveConnectionState | 'disabled' =>
    this.sensors.liveEnabled() ? this.sensors.liveState() : 'disabled',
  );
  protected readonly liveLabel = computed(() => t(`status.live.${this.liveState()}`));

  /** `n` (outside text fields) opens the editor for a new sensor, like the Add sensor button. */
  protected shortcut(event: KeyboardEvent): void {
    if (!this.canCreate() || !isShortcut(event, 'n')) return;
    event.preventDefault();
    void this.router.navigateByUrl('/sensors/new');
  }
}
