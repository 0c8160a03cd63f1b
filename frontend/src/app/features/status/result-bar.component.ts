import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  ViewEncapsulation,
  computed,
  effect,
  inject,
  input,
} from '@angular/core';
import { RECENT_OUTCOMES } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import { outcomeSlots } from './status-view';

const SLOT = 2;
const WIDTH = SLOT * RECENT_OUTCOMES;
const SVG = 'http://www.w3.org/2000/svg';
type Slot = ReturnType<typeof outcomeSlots>[number];

let blank: SVGSVGElement | undefined;

/** An empty bar to copy: a copy is made faster than fifty slots one by one. */
function blankBar(): SVGSVGElement {
  if (blank) return blank;
  blank = document.createElementNS(SVG, 'svg');
  blank.setAttribute('viewBox', `0 0 ${WIDTH} 12`);
  blank.setAttribute('width', String(WIDTH));
  blank.setAttribute('height', '12');
  blank.setAttribute('role', 'img');
  blank.setAttribute('data-testid', 'result-bar');
  blank.append(document.createElementNS(SVG, 'title'));
  for (let index = 0; index < RECENT_OUTCOMES; index++) {
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('x', String(index * SLOT));
    rect.setAttribute('width', String(SLOT - 0.5));
    blank.append(rect);
  }
  return blank;
}

/**
 * The last 50 results as a row of slots, oldest left: success green, failure red (and taller, so the
 * difference is a shape too), no result yet neutral. The counts are given in words.
 *
 * The slots are drawn by hand and only the ones that changed are touched: a list page holds some
 * forty bars of fifty slots, which as template views cost more to create than the rest of the rows.
 */
@Component({
  selector: 'app-result-bar',
  changeDetection: ChangeDetectionStrategy.OnPush,
  // The slots are made by hand, without the attributes that scoped styles would need.
  encapsulation: ViewEncapsulation.None,
  template: '',
  styles: `
    app-result-bar {
      display: inline-flex;
    }
    /* A failure is taller than the rest: a shape, not only a colour. */
    app-result-bar rect {
      y: 2px;
      height: 10px;
    }
    app-result-bar .ok {
      fill: var(--success);
    }
    app-result-bar .fail {
      y: 0;
      height: 12px;
      fill: var(--danger);
    }
    app-result-bar .none {
      fill: var(--border);
    }
  `,
})
export class ResultBarComponent {
  readonly recent = input.required<string>();

  protected readonly label = computed(() => {
    const known = this.recent().slice(-RECENT_OUTCOMES);
    const up = [...known].filter((char) => char === '1').length;
    return t('status.list.recent', { count: RECENT_OUTCOMES, up, down: known.length - up });
  });

  constructor() {
    const svg = blankBar().cloneNode(true) as SVGSVGElement;
    const title = svg.firstElementChild as SVGTitleElement;
    const rects = [...svg.querySelectorAll('rect')];
    inject<ElementRef<HTMLElement>>(ElementRef).nativeElement.append(svg);
    const drawn: (Slot | undefined)[] = [];
    effect(() => {
      const label = this.label();
      svg.setAttribute('aria-label', label);
      title.textContent = label;
      outcomeSlots(this.recent(), RECENT_OUTCOMES).forEach((slot, index) => {
        if (drawn[index] === slot) return;
        drawn[index] = slot;
        rects[index].setAttribute('class', slot);
        rects[index].setAttribute('data-outcome', slot);
      });
    });
  }
}
