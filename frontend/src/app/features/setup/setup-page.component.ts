import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { SetupRequest } from '@monitor/contracts';

import type { ApiCallError } from '../../core/api/api-call-error';
import { activeLanguage, t } from '../../core/i18n/i18n';
import { DEFAULT_LANGUAGE } from '../../core/i18n/languages';
import { SessionStore } from '../../core/session/session.store';
import {
  errorsOnceSubmitted,
  fieldsValidOnSubmit,
  injectFocus,
  passwordProblem,
  whileBusy,
} from '../../shared/forms/form-helpers';
import { NewPasswordFieldsComponent } from '../../shared/forms/new-password-fields.component';
import { TextFieldComponent } from '../../shared/forms/text-field.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { SetupApi } from './setup.api';

type Mode = SetupRequest['mode'];

interface SetupErrors {
  username?: string;
  password?: string;
  repeat?: string;
}

/** Each mode's label and hint are the catalogue's `auth.setup.modes.<mode>.*`. */
const MODES: readonly Mode[] = ['simple', 'advanced'];

/** `/setup`: first run, while no account exists. Creates the first administrator and signs in. */
@Component({
  selector: 'app-setup-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent, NewPasswordFieldsComponent, ErrorAlertComponent, RouterLink, TranslocoPipe],
  template: `
    <section class="panel auth-card" aria-labelledby="setup-heading">
      <h1 id="setup-heading">{{ 'auth.setup.heading' | transloco }}</h1>
      <p class="lead">{{ 'auth.setup.lead' | transloco }}</p>

      @if (!hostAllowed()) {
        <div data-testid="setup-host-refused">
          <app-error-alert
            [heading]="'auth.setup.hostRefused.heading' | transloco"
            [message]="'auth.setup.hostRefused.message' | transloco"
            [retryable]="false"
          />
        </div>
      }

      <form class="form" novalidate (submit)="submit($event)" data-testid="setup-form">
        <app-text-field
          fieldId="setup-username"
          [label]="'auth.username' | transloco"
          autocomplete="username"
          [(value)]="username"
          [error]="errors().username"
        />
        <app-new-password-fields
          fieldId="setup-password"
          [label]="'auth.password' | transloco"
          [(password)]="password"
          [error]="errors().password"
          repeatId="setup-repeat"
          [repeatLabel]="'auth.setup.repeat' | transloco"
          [(repeat)]="repeat"
          [repeatError]="errors().repeat"
        />

        <fieldset class="field">
          <legend>{{ 'auth.setup.mode' | transloco }}</legend>
          @for (choice of modes; track choice) {
            <label class="choice">
              <input
                type="radio"
                name="setup-mode"
                [value]="choice"
                [checked]="mode() === choice"
                [attr.aria-describedby]="'setup-mode-' + choice + '-hint'"
                (change)="mode.set(choice)"
              />
              <span class="choice-label">{{ 'auth.setup.modes.' + choice + '.label' | transloco }}</span>
              <span class="hint" [id]="'setup-mode-' + choice + '-hint'">{{
                'auth.setup.modes.' + choice + '.hint' | transloco
              }}</span>
            </label>
          }
        </fieldset>

        @if (failure(); as failure) {
          <app-error-alert
            [heading]="'auth.setup.failed' | transloco"
            [message]="failure.message"
            [retryable]="false"
          />
          @if (failure.status === 409) {
            <p class="hint">
              {{ 'auth.setup.exists' | transloco }}
              <a routerLink="/sign-in">{{ 'auth.setup.goToSignIn' | transloco }}</a>
            </p>
          }
        }

        <p class="buttons">
          <button type="submit" class="button button-primary" [disabled]="busy()">
            {{ (busy() ? 'auth.setup.creating' : 'auth.setup.create') | transloco }}
          </button>
        </p>
      </form>
    </section>
  `,
})
export class SetupPageComponent {
  private readonly api = inject(SetupApi);
  private readonly session = inject(SessionStore);
  private readonly router = inject(Router);
  private readonly focus = injectFocus();

  protected readonly modes = MODES;
  /** False when this page's host may not run setup (the server refuses it: DNS rebinding). */
  protected readonly hostAllowed = computed(() => this.session.info()?.setup_host_allowed ?? true);

  protected readonly username = signal('');
  protected readonly password = signal('');
  protected readonly repeat = signal('');
  protected readonly mode = signal<Mode>('simple');
  /** Set by the first submit; from then on the errors follow the typing. */
  private readonly submitted = signal(false);
  protected readonly errors = errorsOnceSubmitted(this.submitted, (): SetupErrors => ({
    username: this.username().trim() === '' ? t('auth.setup.enterUsername') : undefined,
    password: passwordProblem(this.password()),
    repeat: this.repeat() !== this.password() ? t('auth.setup.passwordsDiffer') : undefined,
  }));
  protected readonly failure = signal<ApiCallError | undefined>(undefined);
  protected readonly busy = signal(false);

  protected async submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const username = this.username().trim();
    this.failure.set(undefined);
    if (!fieldsValidOnSubmit(this.submitted, this.errors, this.focus)) return;

    await whileBusy(
      this.busy,
      async () => {
        const body: SetupRequest = { username, password: this.password(), mode: this.mode() };
        await this.api.setup(body);
        // The first administrator keeps the language the setup page was shown in.
        const language = activeLanguage();
        if (language !== DEFAULT_LANGUAGE) {
          await this.api.saveLanguage(language).catch(() => undefined);
        }
        await this.session.reload();
        await this.router.navigateByUrl('/');
      },
      (error) => this.failure.set(error),
    );
  }
}
