import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  afterNextRender,
  input,
  output,
  signal,
  viewChild,
} from '@angular/core';

/** A fresh set of recovery codes, shown once, with "Copy all". Takes focus when it appears. */
@Component({
  selector: 'app-recovery-codes',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="codes-box">
      <h3 id="recovery-codes-heading" tabindex="-1" #heading>Your recovery codes</h3>
      <p class="warning">
        <strong>These codes are shown only once.</strong> Store them somewhere safe, such as a password
        manager. Each one signs you in once when your authenticator app is not at hand.
      </p>
      <ol class="codes" data-testid="recovery-codes" aria-labelledby="recovery-codes-heading">
        @for (code of codes(); track code) {
          <li class="mono" data-testid="recovery-code">{{ code }}</li>
        }
      </ol>
      <p class="buttons">
        <button type="button" class="button" (click)="copy()">Copy all</button>
        <button type="button" class="button button-primary" (click)="done.emit()">I have saved them</button>
      </p>
      <p class="status-line" role="status">{{ copyStatus() }}</p>
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

  protected readonly copyStatus = signal('');
  private readonly heading = viewChild.required<ElementRef<HTMLElement>>('heading');

  constructor() {
    afterNextRender({ write: () => this.heading().nativeElement.focus() });
  }

  protected async copy(): Promise<void> {
    this.copyStatus.set('');
    try {
      await navigator.clipboard.writeText(this.codes().join('\n') + '\n');
      this.copyStatus.set('The eight codes are on the clipboard.');
    } catch {
      this.copyStatus.set('Copying did not work here: select the codes and copy them by hand.');
    }
  }
}
