import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

/** A polite "loading" line with a small spinner. */
@Component({
  selector: 'app-loading-indicator',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `<p class="loading" role="status">
    <span class="spinner" aria-hidden="true"></span>{{ label() ?? ('common.loading' | transloco) }}
  </p>`,
  styles: `
    .loading {
      display: flex;
      align-items: center;
      gap: 0.6rem;
      margin: 0;
      padding: 1rem 0;
      color: var(--text-muted);
    }
    .spinner {
      inline-size: 1rem;
      block-size: 1rem;
      border: 2px solid var(--border);
      border-block-start-color: var(--accent);
      border-radius: 50%;
      animation: spin 0.8s linear infinite;
    }
    @keyframes spin {
      to {
        transform: rotate(360deg);
      }
    }
    @media (prefers-reduced-motion: reduce) {
      .spinner {
        animation-duration: 2.4s;
      }
    }
  `,
})
export class LoadingIndicatorComponent {
  /** Defaults to "Loading…". */
  readonly label = input<string>();
}
