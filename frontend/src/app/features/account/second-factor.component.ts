import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { SessionUser } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { CodeFormComponent, typedCode } from '../../shared/forms/code-form.component';
import { injectFocus, whileBusy } from '../../shared/forms/form-helpers';
import { TextFieldComponent } from '../../shared/forms/text-field.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { AccountApi, totpQrUrl } from './account.api';
import { RecoveryCodesComponent } from './recovery-codes.component';

type PasswordAction = 'disable' | 'recovery';

interface Enrolment {
  readonly secret: string;
  /** Unique per enrolment so the browser never shows a cached QR code. */
  readonly qrSrc: string;
}

/**
 * The second factor of the signed-in person: set it up (QR code, secret, confirm with a code), then
 * see the recovery codes once; when on, disable it or make new recovery codes (both ask for the
 * password).
 */
@Component({
  selector: 'app-second-factor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TextFieldComponent,
    CodeFormComponent,
    ErrorAlertComponent,
    RecoveryCodesComponent,
    TranslocoPipe,
  ],
  template: `
    <section class="panel" aria-labelledby="totp-heading" data-testid="second-factor">
      <h2 id="totp-heading">{{ 'account.totp.heading' | transloco }}</h2>

      @if (codes(); as codes) {
        <p class="lead">{{ 'account.totp.isOn' | transloco }}</p>
        <app-recovery-codes [codes]="codes" (done)="hideCodes()" />
      } @else if (enrolment(); as enrolment) {
        <p class="lead">{{ 'account.totp.enrolLead' | transloco }}</p>
        <ol class="steps">
          <li>
            <p>{{ 'account.totp.scan' | transloco }}</p>
            <img
              class="qr"
              [src]="enrolment.qrSrc"
              width="200"
              height="200"
              [alt]="'account.totp.qrAlt' | transloco"
              data-testid="totp-qr"
            />
            <p>{{ 'account.totp.typeKey' | transloco }}</p>
            <p>
              <code class="secret" data-testid="totp-secret">{{ enrolment.secret }}</code>
            </p>
          </li>
          <li>
            <app-code-form
              testId="totp-confirm-form"
              fieldId="totp-code"
              [label]="'account.totp.code' | transloco"
              [digitsOnly]="true"
              [hint]="'account.totp.codeHint' | transloco"
              [maxlength]="10"
              [(value)]="code"
              [error]="fieldErrorText()"
              [failure]="failure()"
              [failureHeading]="'account.totp.confirmFailed' | transloco"
              [busy]="busy()"
              [submitLabel]="'account.totp.confirm' | transloco"
              [busyLabel]="'account.totp.checking' | transloco"
              [backLabel]="'common.actions.cancel' | transloco"
              (submitted)="confirm($event)"
              (back)="cancel()"
            />
          </li>
        </ol>
      } @else if (user().totp_enabled) {
        <p class="lead">{{ 'account.totp.onLead' | transloco }}</p>
        <dl class="facts">
          <div>
            <dt>{{ 'account.totp.codesLeft' | transloco }}</dt>
            <dd data-testid="recovery-codes-left">{{ user().recovery_codes_left }}</dd>
          </div>
        </dl>
        @if (user().recovery_codes_left <= 2) {
          <p class="hint">{{ 'account.totp.fewLeft' | transloco }}</p>
        }

        @if (action(); as action) {
          <form
            class="form action-form"
            novalidate
            (submit)="runAction($event, action)"
            data-testid="totp-password-form"
          >
            <!-- For password managers: whose password this is. -->
            <input
              type="text"
              name="username"
              autocomplete="username"
              [value]="user().username"
              readonly
              hidden
            />
            <app-text-field
              fieldId="totp-password"
              [label]="'account.totp.password' | transloco"
              type="password"
              autocomplete="current-password"
              [hint]="
                (action === 'disable'
                  ? 'account.totp.passwordHintDisable'
                  : 'account.totp.passwordHintRecovery'
                ) | transloco
              "
              [(value)]="password"
              [error]="fieldErrorText()"
            />
            @if (failure(); as message) {
              <app-error-alert
                [heading]="'account.totp.actionFailed' | transloco"
                [message]="message"
                [retryable]="false"
              />
            }
            <p class="buttons">
              <button
                type="submit"
                class="button button-primary"
                [class.button-danger]="action === 'disable'"
                [disabled]="busy()"
              >
                {{
                  (action === 'disable' ? 'account.totp.disableConfirmed' : 'account.totp.recoveryConfirmed')
                    | transloco
                }}
              </button>
              <button type="button" class="button" [disabled]="busy()" (click)="cancel()">
                {{ 'common.actions.cancel' | transloco }}
              </button>
            </p>
          </form>
        } @else {
          <p class="buttons actions">
            <button type="button" class="button button-danger" (click)="ask('disable')">
              {{ 'account.totp.disable' | transloco }}
            </button>
            <button type="button" class="button" (click)="ask('recovery')">
              {{ 'account.totp.newCodes' | transloco }}
            </button>
          </p>
        }
      } @else {
        <p class="lead">{{ 'account.totp.offLead' | transloco }}</p>
        @if (failure(); as message) {
          <app-error-alert
            [heading]="'account.totp.startFailed' | transloco"
            [message]="message"
            [retryable]="false"
          />
        }
        <p class="buttons">
          <button type="button" class="button button-primary" [disabled]="busy()" (click)="start()">
            {{ (busy() ? 'account.totp.starting' : 'account.totp.start') | transloco }}
          </button>
        </p>
      }
      <p class="status-line" role="status">{{ statusText() }}</p>
    </section>
  `,
  styles: `
    section {
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 1rem;
    }
    .lead {
      margin: 0;
    }
    .steps {
      display: grid;
      gap: 1.25rem;
      margin: 0;
      padding-inline-start: 1.4rem;
    }
    .steps p,
    .steps app-code-form {
      margin: 0 0 0.5rem;
    }
    .qr {
      display: block;
      margin-block-end: 0.75rem;
      padding: 0.5rem;
      background: #fff;
      border: 1px solid var(--border);
      border-radius: var(--radius);
      image-rendering: pixelated;
    }
    .secret {
      display: inline-block;
      padding: 0.2rem 0.5rem;
      border-radius: var(--radius);
      background: var(--hover);
      font-size: 1rem;
      letter-spacing: 0.08em;
      overflow-wrap: anywhere;
    }
    .actions {
      margin-block-start: 0.25rem;
    }
  `,
})
export class SecondFactorComponent {
  private readonly api = inject(AccountApi);
  private readonly session = inject(SessionStore);
  private readonly focus = injectFocus();

  readonly user = input.required<SessionUser>();

  protected readonly enrolment = signal<Enrolment | undefined>(undefined);
  /** Recovery codes just issued; shown until the person says they are saved. */
  protected readonly codes = signal<readonly string[] | undefined>(undefined);
  protected readonly action = signal<PasswordAction | undefined>(undefined);
  protected readonly code = signal('');
  protected readonly password = signal('');
  /** Catalogue key of what is wrong with the code or password typed. */
  private readonly fieldError = signal<string | undefined>(undefined);
  protected readonly fieldErrorText = computed(() => {
    const key = this.fieldError();
    return key ? t(key) : undefined;
  });
  protected readonly failure = signal<string | undefined>(undefined);
  private readonly status = signal<'isOn' | 'isOff' | undefined>(undefined);
  protected readonly statusText = computed(() => {
    const status = this.status();
    return status ? t(`account.totp.${status}`) : '';
  });
  protected readonly busy = signal(false);

  protected async start(): Promise<void> {
    if (this.busy()) return;
    this.reset();
    await whileBusy(
      this.busy,
      async () => {
        const started = await this.api.startTotp();
        this.enrolment.set({ secret: started.secret, qrSrc: totpQrUrl(Date.now()) });
        this.focus('#totp-code');
      },
      (error) => this.failure.set(error.message),
    );
  }

  protected async confirm(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const code = typedCode(this.code());
    this.failure.set(undefined);
    this.fieldError.set(/^\d{6}$/.test(code) ? undefined : 'account.totp.codeInvalid');
    if (this.fieldError()) {
      this.focus('#totp-code');
      return;
    }
    await whileBusy(
      this.busy,
      async () => {
        const answer = await this.api.confirmTotp(code);
        this.enrolment.set(undefined);
        this.codes.set(answer.recovery_codes);
        this.code.set('');
        await this.reloadSession();
      },
      (error) => {
        this.failure.set(error.message);
        this.focus('#totp-code');
      },
    );
  }

  protected ask(action: PasswordAction): void {
    this.reset();
    this.action.set(action);
    this.focus('#totp-password');
  }

  protected async runAction(event: Event, action: PasswordAction): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const password = this.password();
    this.failure.set(undefined);
    this.fieldError.set(password === '' ? 'account.totp.passwordMissing' : undefined);
    if (password === '') {
      this.focus('#totp-password');
      return;
    }
    await whileBusy(
      this.busy,
      async () => {
        if (action === 'disable') {
          await this.api.disableTotp(password);
          this.reset();
          this.status.set('isOff');
        } else {
          const answer = await this.api.newRecoveryCodes(password);
          this.reset();
          this.codes.set(answer.recovery_codes);
        }
        await this.reloadSession();
      },
      (error) => {
        this.failure.set(error.message);
        this.focus('#totp-password');
      },
    );
  }

  protected cancel(): void {
    this.reset();
    this.focus('.buttons button');
  }

  protected hideCodes(): void {
    this.codes.set(undefined);
    this.status.set('isOn');
  }

  private reset(): void {
    this.enrolment.set(undefined);
    this.codes.set(undefined);
    this.action.set(undefined);
    this.code.set('');
    this.password.set('');
    this.fieldError.set(undefined);
    this.failure.set(undefined);
    this.status.set(undefined);
  }

  /** The session carries the second-factor state and the recovery codes left. */
  private async reloadSession(): Promise<void> {
    try {
      await this.session.reload();
    } catch {
      // The change is made; the counts refresh with the next successful read.
    }
  }
}
