import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { ServerHealth } from './server-health.service';

/** Where the health indicator and the About page's health panel live. */
export const ABOUT_PATH = '/settings/about';

/**
 * The header's small sign of the monitor service's own health: a dot with a symbol and a short text,
 * linking to About, where the details are. Red (and "!") when the server does not answer or answers
 * with a problem, so colour is never the only sign.
 */
@Component({
  selector: 'app-health-indicator',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe],
  template: `
    <span role="status" class="wrapper">
      <a
        class="indicator"
        [routerLink]="aboutPath"
        [attr.data-state]="state()"
        data-testid="health-indicator"
      >
        <span class="dot" aria-hidden="true">{{ symbol() }}</span>
        <span class="text">{{ 'app.health.' + state() | transloco }}</span>
      </a>
    </span>
  `,
  styles: `
    :host {
      display: inline-flex;
      min-inline-size: 0;
    }
    .wrapper {
      display: inline-flex;
      min-inline-size: 0;
    }
    .indicator {
      display: inline-flex;
      align-items: center;
      gap: 0.4rem;
      min-inline-size: 0;
      padding: 0.3rem 0.55rem;
      border-radius: 999px;
      color: var(--text-muted);
      font-size: 0.85rem;
      text-decoration: none;
    }
    .indicator:hover {
      background: var(--hover);
      color: var(--text);
    }
    .dot {
      display: grid;
      flex: none;
      place-items: center;
      inline-size: 1.1rem;
      block-size: 1.1rem;
      border-radius: 50%;
      background: var(--border-strong);
      color: var(--surface);
      font-size: 0.7rem;
      font-weight: 700;
      line-height: 1;
    }
    [data-state='ok'] .dot {
      background: var(--success);
      color: var(--on-success);
    }
    [data-state='unanswered'] .dot,
    [data-state='failing'] .dot {
      background: var(--danger);
      color: var(--on-danger);
    }
    [data-state='unanswered'],
    [data-state='failing'] {
      color: var(--danger);
      font-weight: 600;
    }
    .text {
      white-space: nowrap;
      overflow: hidden;
      text-overflow: ellipsis;
    }
    /* Phones: the dot and its symbol only; the text stays for screen readers and as the link's name. */
    @media (max-width: 45rem) {
      .text {
        position: absolute;
        inline-size: 1px;
        block-size: 1px;
        overflow: hidden;
        clip-path: inset(50%);
        white-space: nowrap;
      }
    }
  `,
})
export class HealthIndicatorComponent {
  private readonly health = inject(ServerHealth);
  protected readonly aboutPath = ABOUT_PATH;

  protected readonly state = computed(() => this.health.check().state);
  protected readonly symbol = computed(() => {
    switch (this.state()) {
      case 'ok':
        return '✓';
      case 'unknown':
        return '…';
      default:
        return '!';
    }
  });

  constructor() {
    this.health.retain();
  }
}
