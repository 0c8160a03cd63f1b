import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { RECENT_OUTCOMES } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import { outcomeSlots } from './status-view';

const SLOT = 2;

/**
 * The last 50 results as a row of slots, oldest left: success green, failure red (and taller, so the
 * difference is a shape too), no result yet neutral. The counts are given in words.
 */
@Component({
  selector: 'app-result-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <svg
      [attr.viewBox]="'0 0 ' + width + ' 12'"
      [attr.width]="width"
      height="12"
      role="img"
      [attr.aria-label]="label()"
      data-testid="result-bar"
    >
      <title>{{ label() }}</title>
      @for (slot of slots(); track $index) {
        <rect
          [attr.class]="slot"
          [attr.data-outcome]="slot"
          [attr.x]="$index * slotWidth"
          [attr.y]="slot === 'fail' ? 0 : 2"
          [attr.width]="slotWidth - 0.5"
          [attr.height]="slot === 'fail' ? 12 : 10"
        />
      }
    </svg>
  `,
  styles: `
    :host {
      display: inline-flex;
    }
    .ok {
      fill: var(--success);
    }
    .fail {
      fill: var(--danger);
    }
    .none {
      fill: var(--border);
    }
  `,
})
export class ResultBarComponent {
  readonly recent = input.required<string>();

  protected readonly slotWidth = SLOT;
  protected readonly width = SLOT * RECENT_OUTCOMES;
  protected readonly slots = computed(() => outcomeSlots(this.recent(), RECENT_OUTCOMES));
  protected readonly label = computed(() => {
    const known = this.recent().slice(-RECENT_OUTCOMES);
    const up = [...known].filter((char) => char === '1').length;
    return t('status.list.recent', { count: RECENT_OUTCOMES, up, down: known.length - up });
  });
}
