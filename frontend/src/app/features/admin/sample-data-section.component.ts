import { ChangeDetectionStrategy, Component, inject, input } from '@angular/core';

import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { AdminStore } from './admin.store';

/** How much sample data there is; administrators load and remove it. */
@Component({
  selector: 'app-sample-data-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ErrorAlertComponent, LoadingIndicatorComponent],
  template: `
    <p class="hint">
      Ten sensors on three sites with a week of invented history. Only the two that watch this monitor run;
      the rest start paused. Removing it touches only sample sensors and their history.
    </p>
    @if (store.countsError(); as error) {
      <app-error-alert
        heading="The sample data could not be counted"
        [message]="error.message"
        (retry)="store.loadCounts()"
      />
    } @else if (store.counts(); as counts) {
      <dl class="facts" data-testid="sample-counts">
        <div>
          <dt>Sample sensors</dt>
          <dd data-testid="sample-sensors">{{ counts.sensors }}</dd>
        </div>
        <div>
          <dt>Their results</dt>
          <dd data-testid="sample-results">{{ counts.results }}</dd>
        </div>
        <div>
          <dt>Their incidents</dt>
          <dd data-testid="sample-incidents">{{ counts.incidents }}</dd>
        </div>
        <div>
          <dt>Sample sites</dt>
          <dd data-testid="sample-sites">{{ counts.sites }}</dd>
        </div>
      </dl>
    } @else {
      <app-loading-indicator label="Counting the sample data…" />
    }
    @if (store.samplesError(); as message) {
      <app-error-alert heading="The change was refused" [message]="message" [retryable]="false" />
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
          Load sample data
        </button>
        <button
          type="button"
          class="button button-danger"
          [disabled]="store.samplesBusy()"
          (click)="store.removeSamples()"
        >
          Remove sample data
        </button>
      </p>
    } @else {
      <p class="hint">Loading and removing sample data needs an administrator.</p>
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
}
