import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import { DENSITIES, SENSOR_ORDERS } from '@monitor/contracts';

import { StatusPreferences } from './status-preferences';

/** The order (problems first or saved) and the density (cards, list, wall) as two small button groups. */
@Component({
  selector: 'app-view-switches',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="switch" role="group" [attr.aria-label]="'status.order.label' | transloco">
      @for (order of orders; track order) {
        <button
          type="button"
          [attr.data-testid]="'order-' + order"
          [attr.aria-pressed]="prefs.order() === order"
          (click)="prefs.setOrder(order)"
        >
          {{ 'status.order.' + order | transloco }}
        </button>
      }
    </div>
    <div class="switch" role="group" [attr.aria-label]="'status.density.label' | transloco">
      @for (density of densities; track density) {
        <button
          type="button"
          [attr.data-testid]="'density-' + density"
          [attr.aria-pressed]="prefs.density() === density"
          (click)="prefs.setDensity(density)"
        >
          {{ 'status.density.' + density | transloco }}
        </button>
      }
    </div>
  `,
  styles: `
    :host {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }
    .switch {
      display: inline-flex;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      overflow: hidden;
    }
    .switch button {
      min-block-size: 2.25rem;
      padding: 0.2rem 0.65rem;
      border: 0;
      background: var(--surface);
      color: var(--text);
      font: inherit;
      font-size: 0.9rem;
      cursor: pointer;
    }
    .switch button + button {
      border-inline-start: 1px solid var(--border-strong);
    }
    .switch button:hover {
      background: var(--hover);
    }
    .switch button[aria-pressed='true'] {
      background: var(--accent);
      color: var(--on-accent);
      font-weight: 600;
    }
    .switch button:focus-visible {
      outline: 2px solid var(--focus);
      outline-offset: -3px;
    }
  `,
})
export class ViewSwitchesComponent {
  protected readonly prefs = inject(StatusPreferences);
  protected readonly orders = SENSOR_ORDERS;
  protected readonly densities = DENSITIES;
}
