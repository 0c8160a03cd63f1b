import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { SensorStatus } from '@monitor/contracts';

import { statusDisplay } from '../../shared/format/sensor-status';
import { SUMMARY_STATES } from './status-view';

export type StatusCounts = Readonly<Record<SensorStatus | 'all', number>>;

/**
 * How many sensors are in each state, as large buttons that filter the board by that state; pressing
 * the active one again (or All) shows every state.
 */
@Component({
  selector: 'app-summary-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="bar" role="group" [attr.aria-label]="'status.summary.label' | transloco">
      <button
        type="button"
        class="count"
        data-testid="summary-all"
        [attr.aria-pressed]="active() === ''"
        (click)="choose.emit('')"
      >
        <span class="number">{{ counts().all }}</span>
        <span class="name">{{ 'status.summary.all' | transloco }}</span>
      </button>
      @for (status of states; track status) {
        <button
          type="button"
          class="count"
          [attr.data-testid]="'summary-' + status"
          [attr.data-state]="status"
          [attr.aria-pressed]="active() === status"
          (click)="choose.emit(active() === status ? '' : status)"
        >
          <span class="number"
            ><span class="symbol" aria-hidden="true">{{ display(status).symbol }}</span
            >{{ counts()[status] }}</span
          >
          <span class="name">{{ display(status).label }}</span>
        </button>
      }
    </div>
  `,
  styles: `
    .bar {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem;
    }
    .count {
      display: inline-flex;
      align-items: baseline;
      gap: 0.3rem;
      min-block-size: 2.25rem;
      padding: 0.1rem 0.45rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
      font: inherit;
      cursor: pointer;
    }
    .count:hover {
      background: var(--hover);
    }
    .count[aria-pressed='true'] {
      border-color: var(--accent);
      background: var(--accent);
      color: var(--on-accent);
    }
    .number {
      font-size: 1.2rem;
      font-weight: 700;
      font-variant-numeric: tabular-nums;
    }
    .symbol {
      margin-inline-end: 0.2rem;
      font-size: 1rem;
    }
    .count[data-state='down'][aria-pressed='false'] .number {
      color: var(--danger);
    }
    .count[data-state='up'][aria-pressed='false'] .symbol {
      color: var(--success);
    }
    .name {
      font-size: 0.85rem;
    }
  `,
})
export class SummaryBarComponent {
  readonly counts = input.required<StatusCounts>();
  /** The state filtered on; '' for all. */
  readonly active = input('');
  readonly choose = output<SensorStatus | ''>();

  protected readonly states = SUMMARY_STATES;
  protected readonly display = statusDisplay;
}
