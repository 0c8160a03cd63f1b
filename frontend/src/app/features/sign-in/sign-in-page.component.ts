import { ChangeDetectionStrategy, Component, computed, inject, input, signal } from '@angular/core';
import { Router } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { LoginRequest, TotpLoginRequest } from '@monitor/contracts';

import type { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { safeNextUrl } from '../../core/session/next-url';
import { SessionStore } from '../../core/session/session.store';
import { CodeFormComponent, typedCode } from '../../shared/forms/code-form.component';
import { injectFocus, messageWithRetry, whileBusy } from '../../shared/forms/form-helpers';
import { TextFieldComponent } from '../../shared/forms/text-field.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { SignInApi } from './sign-in.api';

/** How long the server keeps a second-factor challenge. */
const CHALLENGE_LIFETIME_MS = 2 * 60_000;

interface Challenge {
  readonly token: string;
  readonly receivedAt: number;
}

/**
 * `/sign-in?next=<page>`: username and password, then (for accounts with a second factor) a code
 * from the authenticator app or a recovery code; afterwards back to `next`.
 */
@Component({
  selector: 'app-sign-in-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent, CodeFormComponent, ErrorAlertComponent, TranslocoPipe],
  template: `
    <section class="panel auth-card" aria-labelledby="sign-in-heading">
      @if (challenge()) {
        <h1 id="sign-in-heading">{{ 'auth.signIn.secondFactor' | transloco }}</h1>
        <p class="lead">{{ 'auth.signIn.codeLead' | transloco }}</p>
        <app-code-form
          testId="sign-in-code-form"
          fieldId="sign-in-code"
          [label]="'auth.signIn.code' | transloco"
          [hint]="'auth.signIn.codeHint' | transloco"
          [maxlength]="40"
          [(value)]="code"
          [error]="codeError()"
          [failure]="failure()"
          [failureHeading]="'auth.signIn.failed' | transloco"
          [busy]="busy()"
          [submitLabel]="'auth.signIn.verify' | transloco"
          [busyLabel]="'auth.signIn.checking' | transloco"
          [backLabel]="'auth.signIn.back' | transloco"
          (submitted)="submitCode($event)"
          (back)="startOver()"
        />
      } @else {
        <h1 id="sign-in-heading">{{ 'auth.signIn.heading' | transloco }}</h1>
        <p class="lead">{{ 'auth.signIn.lead' | transloco }}</p>
        @if (notice(); as notice) {
          <p class="notice" role="status">{{ notice }}</p>
        }
        <form class="form" novalidate (submit)="submitPassword($event)" data-testid="sign-in-form">
          <app-text-field
            fieldId="sign-in-username"
            [label]="'auth.username' | transloco"
            autocomplete="username"
            [(value)]="username"
            [error]="usernameError()"
          />
          <app-text-field
            fieldId="sign-in-password"
            [label]="'auth.password' | transloco"
            type="password"
            autocomplete="current-password"
            [(value)]="password"
            [error]="passwordError()"
          />
          @if (failure(); as message) {
            <app-error-alert
              [heading]="'auth.signIn.failed' | transloco"
              [message]="message"
              [retryable]="false"
            />
          }
          <p class="buttons">
            <button type="submit" class="button button-primary" [disabled]="busy()">
              {{ (busy() ? 'auth.signIn.signingIn' : 'auth.signIn.submit') | transloco }}
            </button>
          </p>
        </form>
      }
    </section>
  `,
  styles: `
    .notice {
      margin-block-end: 1rem;
    }
  `,
})
export class SignInPageComponent {
  private readonly api = inject(SignInApi);
  private readonly session = inject(SessionStore);
  private readonly router = inject(Router);
  private readonly focus = injectFocus();

  /** Where to go after signing in (query parameter); only in-app paths are followed. */
  readonly next = input<string>();

  protected readonly username = signal('');
  protected readonly password = signal('');
  protected readonly code = signal('');
  /** Set by a submit of each step; from then on the errors follow the typing. */
  private readonly passwordSubmitted = signal(false);
  private readonly codeSubmitted = signal(false);
  protected readonly usernameError = computed(() =>
    this.passwordSubmitted() && this.username().trim() === '' ? t('auth.signIn.enterUsername') : undefined,
  );
  protected readonly passwordError = computed(() =>
    this.passwordSubmitted() && this.password() === '' ? t('auth.signIn.enterPassword') : undefined,
  );
  protected readonly codeError = computed(() =>
    this.codeSubmitted() && this.code().trim() === '' ? t('auth.signIn.enterCode') : undefined,
  );
  protected readonly challenge = signal<Challenge | undefined>(undefined);
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly notice = signal<string | undefined>(undefined);
  protected readonly busy = signal(false);

  protected async submitPassword(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const username = this.username().trim();
    const password = this.password();
    this.passwordSubmitted.set(true);
    this.failure.set(undefined);
    this.notice.set(undefined);
    if (username === '' || password === '') {
      this.focus('[aria-invalid="true"]');
      return;
    }

    await whileBusy(
      this.busy,
      async () => {
        const body: LoginRequest = { username, password };
        const answer = await this.api.login(body);
        if ('totp_required' in answer) {
          this.challenge.set({ token: answer.challenge, receivedAt: Date.now() });
          this.code.set('');
          this.codeSubmitted.set(false);
          this.focus('#sign-in-code');
          return;
        }
        await this.signedIn();
      },
      (error) => {
        this.failure.set(messageWithRetry(error));
        this.focus('#sign-in-password');
      },
    );
  }

  protected async submitCode(event: Event): Promise<void> {
    event.preventDefault();
    const challenge = this.challenge();
    if (this.busy() || !challenge) return;
    // Recovery codes are taken too, in either case.
    const code = typedCode(this.code()).toUpperCase();
    this.codeSubmitted.set(true);
    this.failure.set(undefined);
    if (code === '') {
      this.focus('#sign-in-code');
      return;
    }

    await whileBusy(
      this.busy,
      async () => {
        const body: TotpLoginRequest = { challenge: challenge.token, code };
        await this.api.loginWithCode(body);
        await this.signedIn();
      },
      (error) => {
        // A challenge takes one try, right or wrong: after a refused code the password comes first.
        if (error.status === 401) {
          this.startOver(
            t(this.expired(challenge, error) ? 'auth.signIn.expired' : 'auth.signIn.codeRefused'),
          );
        } else {
          this.failure.set(messageWithRetry(error));
          this.focus('#sign-in-code');
        }
      },
    );
  }

  /** Back to the password step, keeping the username. */
  protected startOver(notice?: string): void {
    this.challenge.set(undefined);
    this.passwordSubmitted.set(false);
    this.password.set('');
    this.code.set('');
    this.failure.set(undefined);
    this.notice.set(notice);
    this.focus('#sign-in-password');
  }

  private expired(challenge: Challenge, error: ApiCallError): boolean {
    return (
      Date.now() - challenge.receivedAt >= CHALLENGE_LIFETIME_MS || /expired|challenge/i.test(error.message)
    );
  }

  private async signedIn(): Promise<void> {
    this.passwordSubmitted.set(false);
    this.codeSubmitted.set(false);
    this.password.set('');
    this.code.set('');
    await this.session.reload();
    await this.router.navigateByUrl(safeNextUrl(this.next()));
  }
}
