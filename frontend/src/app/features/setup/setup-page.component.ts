import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  Injector,
  computed,
  inject,
  signal,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import type { OkResponse, SetupRequest } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { ApiCallError } from '../../core/api/api-call-error';
import { SessionStore } from '../../core/session/session.store';
import { PASSWORD_HINT, focusAfterRender, passwordProblem } from '../../shared/forms/form-helpers';
import { TextFieldComponent } from '../../shared/forms/text-field.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';

type Mode = SetupRequest['mode'];

interface SetupErrors {
  username?: string;
  password?: string;
  repeat?: string;
}

const MODES: readonly { value: Mode; label: string; hint: string }[] = [
  {
    value: 'simple',
    label: 'Simple',
    hint: 'Shows the everyday options and keeps the rarely needed ones out of the way.',
  },
  {
    value: 'advanced',
    label: 'Advanced',
    hint: 'Shows every option, for people who tune checks and alerts in detail.',
  },
];

/** `/setup`: first run, while no account exists. Creates the first administrator and signs in. */
@Component({
  selector: 'app-setup-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent, ErrorAlertComponent, RouterLink],
  template: `
    <section class="panel auth-card" aria-labelledby="setup-heading">
      <h1 id="setup-heading">Set up Monitor</h1>
      <p class="lead">
        Create the first account. It is an administrator: it can add sensors, channels and other accounts.
      </p>

      <form class="form" novalidate (submit)="submit($event)" data-testid="setup-form">
        <app-text-field
          fieldId="setup-username"
          label="Username"
          autocomplete="username"
          [(value)]="username"
          [error]="errors().username"
        />
        <app-text-field
          fieldId="setup-password"
          label="Password"
          type="password"
          autocomplete="new-password"
          [hint]="passwordHint"
          [(value)]="password"
          [error]="errors().password"
        />
        <app-text-field
          fieldId="setup-repeat"
          label="Repeat the password"
          type="password"
          autocomplete="new-password"
          [(value)]="repeat"
          [error]="errors().repeat"
        />

        <fieldset class="field">
          <legend>Mode</legend>
          @for (choice of modes; track choice.value) {
            <label class="choice">
              <input
                type="radio"
                name="setup-mode"
                [value]="choice.value"
                [checked]="mode() === choice.value"
                [attr.aria-describedby]="'setup-mode-' + choice.value + '-hint'"
                (change)="mode.set(choice.value)"
              />
              <span class="choice-label">{{ choice.label }}</span>
              <span class="hint" [id]="'setup-mode-' + choice.value + '-hint'">{{ choice.hint }}</span>
            </label>
          }
        </fieldset>

        @if (failure(); as failure) {
          <app-error-alert
            heading="The account could not be created"
            [message]="failure.message"
            [retryable]="false"
          />
          @if (failure.status === 409) {
            <p class="hint">
              An account already exists. <a routerLink="/sign-in">Go to the sign-in page</a>.
            </p>
          }
        }

        <p class="buttons">
          <button type="submit" class="button button-primary" [disabled]="busy()">
            {{ busy() ? 'Creating the account…' : 'Create the account and sign in' }}
          </button>
        </p>
      </form>
    </section>
  `,
})
export class SetupPageComponent {
  private readonly api = inject(ApiClient);
  private readonly session = inject(SessionStore);
  private readonly router = inject(Router);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly injector = inject(Injector);

  protected readonly modes = MODES;
  protected readonly passwordHint = PASSWORD_HINT;

  protected readonly username = signal('');
  protected readonly password = signal('');
  protected readonly repeat = signal('');
  protected readonly mode = signal<Mode>('simple');
  /** Set by the first submit; from then on the errors follow the typing. */
  private readonly submitted = signal(false);
  protected readonly errors = computed<SetupErrors>(() => {
    if (!this.submitted()) return {};
    return {
      username: this.username().trim() === '' ? 'Enter a username.' : undefined,
      password: passwordProblem(this.password()),
      repeat: this.repeat() !== this.password() ? 'The two passwords differ.' : undefined,
    };
  });
  protected readonly failure = signal<ApiCallError | undefined>(undefined);
  protected readonly busy = signal(false);

  protected async submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const username = this.username().trim();
    this.submitted.set(true);
    const errors = this.errors();
    this.failure.set(undefined);
    if (errors.username || errors.password || errors.repeat) {
      focusAfterRender(this.injector, this.host.nativeElement, '[aria-invalid="true"]');
      return;
    }

    this.busy.set(true);
    try {
      const body: SetupRequest = { username, password: this.password(), mode: this.mode() };
      await this.api.post<OkResponse>('/api/setup', body);
      await this.session.reload();
      await this.router.navigateByUrl('/');
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure));
    } finally {
      this.busy.set(false);
    }
  }
}
