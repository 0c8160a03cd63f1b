import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

/** An error message announced to assistive technology, with an optional "Try again" button. */
@Component({
  selector: 'app-error-alert',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="alert" role="alert">
      <span class="icon" aria-hidden="true">!</span>
      <div class="body">
        <p class="title">{{ heading() ?? ('common.error.heading' | transloco) }}</p>
        <p class="message">{{ message() }}</p>
        @if (retryable()) {
          <button type="button" class="button" (click)="retry.emit()">
            {{ 'common.actions.retry' | transloco }}
          </button>
        }
      </div>
    </div>
  `,
  styles: `
    .alert {
      display: flex;
      gap: 0.75rem;
      align-items: flex-start;
      padding: 0.9rem 1rem;
      border: 1px solid var(--danger-border);
      border-inline-start: 4px solid var(--danger);
      border-radius: var(--radius);
      background: var(--danger-bg);
      color: var(--text);
    }
    .icon {
      flex: none;
      display: grid;
      place-items: center;
      inline-size: 1.4rem;
      block-size: 1.4rem;
      border-radius: 50%;
      background: var(--danger);
      color: var(--on-danger);
      font-weight: 700;
      line-height: 1;
    }
    .body {
      min-inline-size: 0;
    }
    .title {
      margin: 0;
      font-weight: 600;
    }
    .message {
      margin: 0.2rem 0 0;
      overflow-wrap: anywhere;
    }
    .button {
      margin-block-start: 0.75rem;
    }
  `,
})
export class ErrorAlertComponent {
  readonly message = input.required<string>();
  /** Defaults to "Something went wrong". */
  readonly heading = input<string>();
  /** Show the "Try again" button (emits `retry`). */
  readonly retryable = input(true);
  readonly retry = output();
}
