import { ChangeDetectionStrategy, Component, computed, inject, output, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { ApiCallError } from '../../core/api/api-call-error';
import { SessionStore } from '../../core/session/session.store';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { AdminApi } from '../admin/admin.api';

/**
 * The status page without sensors: what a sensor is and, for administrators (the only role that may
 * create sensors), the way to a first sensor or to the sample data. Others learn who can add them.
 */
@Component({
  selector: 'app-first-sensor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe, ErrorAlertComponent],
  template: `
    <div class="empty-state" data-testid="sensors-empty" data-tour="first-sensor">
      <p class="lead">{{ 'status.empty.none' | transloco }}</p>
      <p data-testid="sensors-explained">{{ 'status.empty.explained' | transloco }}</p>
      @if (isAdmin()) {
        <p class="buttons">
          <a class="button button-primary" routerLink="/sensors/new" data-testid="add-first-sensor">{{
            'status.empty.addFirst' | transloco
          }}</a>
          <button
            type="button"
            class="button"
            data-testid="load-samples"
            [disabled]="busy()"
            (click)="loadSamples()"
          >
            {{ (busy() ? 'status.empty.loadingSamples' : 'status.empty.loadSamples') | transloco }}
          </button>
        </p>
        <p class="hint">{{ 'status.empty.samplesHint' | transloco }}</p>
        @if (failure(); as message) {
          <app-error-alert
            [heading]="'status.empty.samplesFailed' | transloco"
            [message]="message"
            [retryable]="false"
          />
        }
      } @else {
        <p class="hint" data-testid="sensors-ask-admin">{{ 'status.empty.askAdmin' | transloco }}</p>
      }
    </div>
  `,
  styles: `
    .empty-state {
      margin-block-start: 1rem;
      padding: 1.25rem;
      border: 1px dashed var(--border-strong);
      border-radius: var(--radius);
    }
    .empty-state p {
      margin: 0 0 0.75rem;
    }
    .empty-state p:last-child {
      margin-block-end: 0;
    }
    .lead {
      font-size: 1.1rem;
      font-weight: 600;
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem 0.75rem;
    }
    .hint {
      color: var(--text-muted);
      font-size: 0.9rem;
    }
  `,
})
export class FirstSensorComponent {
  private readonly adminApi = inject(AdminApi);
  private readonly session = inject(SessionStore);

  /** The sample data is in: the page reloads its sensors. */
  readonly loaded = output<void>();

  protected readonly isAdmin = computed(() => this.session.isAdmin());
  protected readonly busy = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);

  protected async loadSamples(): Promise<void> {
    if (this.busy()) return;
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      await this.adminApi.loadSamples();
      this.loaded.emit();
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
    } finally {
      this.busy.set(false);
    }
  }
}
