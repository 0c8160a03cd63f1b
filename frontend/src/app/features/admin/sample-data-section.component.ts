import { ChangeDetectionStrategy, Component, inject, input } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { formatNumber } from '../../core/i18n/format';

import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { AdminStore } from './admin.store';

/** How much sample data there is; administrators load and remove it. */
@Component({
  selector: 'app-sample-data-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ErrorAlertComponent, LoadingIndicatorComponent, TranslocoPipe],
  template: `
    <p class="hint">{{ 'admin.samples.hint' | transloco }}</p>
    @if (store.countsError(); as error) {
      <app-error-alert
        [heading]="'admin.samples.countFailed' | transloco"
        [message]="error.message"
        (retry)="store.loadCounts()"
      />
    } @else if (store.counts(); as counts) {
      <dl class="facts" data-testid="sample-counts">
        <div>
          <dt>{{ 'admin.samples.sensors' | transloco }}</dt>
          <dd data-testid="sample-sensors">{{ number(counts.sensors) }}</dd>
        </div>
        <div>
          <dt>{{ 'admin.samples.results' | transloco }}</dt>
          <dd data-testid="sample-results">{{ number(counts.results) }}</dd>
        </div>
        <div>
          <dt>{{ 'admin.samples.incidents' | transloco }}</dt>
          <dd data-testid="sample-incidents">{{ number(counts.incidents) }}</dd>
        </div>
        <div>
          <dt>{{ 'admin.samples.sites' | transloco }}</dt>
          <dd data-testid="sample-sites">{{ number(counts.sites) }}</dd>
        </div>
      </dl>
    } @else {
      <app-loading-indicator [label]="'admin.samples.counting' | transloco" />
    }
    @if (store.samplesError(); as message) {
      <app-error-alert
        [heading]="'admin.samples.changeFailed' | transloco"
        [message]="message"
        [retryable]="false"
      />
    }
    <p class="status-line" role="status" data-testid="sample-status">{{ store.samplesStatus() }}</p>
    @if (canChange()) {
      <p class="buttons">
        <button
          type="button"
          class="button button-primary"
          [disabled]="store.samplesBusy()"
          (click)="store.loadSamples()"
        >
          {{ 'admin.samples.load' | transloco }}
        </button>
        <button
          type="button"
          class="button button-danger"
          [disabled]="store.samplesBusy()"
          (click)="store.removeSamples()"
        >
          {{ 'admin.samples.remove' | transloco }}
        </button>
      </p>
    } @else {
      <p class="hint">{{ 'admin.samples.needsAdmin' | transloco }}</p>
    }
  `,
  styles: `
    :host {
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 0.9rem;
    }
  `,
})
export class SampleDataSectionComponent {
  protected readonly store = inject(AdminStore);
  /** Whether the buttons are offered (administrators). */
  readonly canChange = input(false);
  protected readonly number = formatNumber;
}
