import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  afterNextRender,
  computed,
  input,
  output,
  signal,
  viewChild,
} from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';

/** A fresh set of recovery codes, shown once, with "Copy all". Takes focus when it appears. */
@Component({
  selector: 'app-recovery-codes',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="codes-box">
      <h3 id="recovery-codes-heading" tabindex="-1" #heading>{{ 'account.recovery.heading' | transloco }}</h3>
      <p class="warning">
        <strong>{{ 'account.recovery.once' | transloco }}</strong>
        {{ 'account.recovery.store' | transloco }}
      </p>
      <ol class="codes" data-testid="recovery-codes" aria-labelledby="recovery-codes-heading">
        @for (code of codes(); track code) {
          <li class="mono" data-testid="recovery-code">{{ code }}</li>
        }
      </ol>
      <p class="buttons">
        <button type="button" class="button" (click)="copy()">
          {{ 'account.recovery.copyAll' | transloco }}
        </button>
        <button type="button" class="button button-primary" (click)="done.emit()">
          {{ 'account.recovery.saved' | transloco }}
        </button>
      </p>
      <p class="status-line" role="status">{{ copyStatusText() }}</p>
    </div>
  `,
  styles: `
    .codes-box {
      display: grid;
      gap: 0.9rem;
      padding: 1rem;
      border: 2px dashed var(--border-strong);
      border-radius: var(--radius);
    }
    h3 {
      margin: 0;
      font-size: 1.05rem;
    }
    h3:focus {
      outline: none;
    }
    .warning {
      margin: 0;
      padding: 0.6rem 0.8rem;
      border-inline-start: 4px solid var(--danger);
      background: var(--danger-bg);
    }
    .codes {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr));
      gap: 0.4rem 1.5rem;
      margin: 0;
      padding-inline-start: 1.75rem;
      font-size: 1.05rem;
    }
    .codes li {
      padding-inline-start: 0.25rem;
      user-select: all;
    }
  `,
})
export class RecoveryCodesComponent {
  readonly codes = input.required<readonly string[]>();
  /** The person says the codes are stored; hide them. */
  readonly done = output();

  private readonly copyStatus = signal<'copied' | 'copyFailed' | undefined>(undefined);
  protected readonly copyStatusText = computed(() => {
    const status = this.copyStatus();
    return status ? t(`account.recovery.${status}`) : '';
  });
  private readonly heading = viewChild.required<ElementRef<HTMLElement>>('heading');

  constructor() {
    afterNextRender({ write: () => this.heading().nativeElement.focus() });
  }

  protected async copy(): Promise<void> {
    this.copyStatus.set(undefined);
    try {
      await navigator.clipboard.writeText(this.codes().join('\n') + '\n');
      this.copyStatus.set('copied');
    } catch {
      this.copyStatus.set('copyFailed');
    }
  }
}
