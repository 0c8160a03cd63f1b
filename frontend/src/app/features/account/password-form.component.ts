import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { ChangePasswordRequest } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
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
import { AccountApi } from './account.api';

interface PasswordErrors {
  current?: string;
  next?: string;
  repeat?: string;
}

/** Changes the signed-in person's own password (`PUT /api/password`). */
@Component({
  selector: 'app-password-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent, NewPasswordFieldsComponent, ErrorAlertComponent, TranslocoPipe],
  template: `
    <section class="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">{{ 'account.password.heading' | transloco }}</h2>
      <p class="lead">{{ 'account.password.lead' | transloco }}</p>
      <form class="form" novalidate (submit)="submit($event)" data-testid="password-form">
        <!-- For password managers: whose password this is. -->
        <input type="text" name="username" autocomplete="username" [value]="username()" readonly hidden />
        <app-text-field
          fieldId="password-current"
          [label]="'account.password.current' | transloco"
          type="password"
          autocomplete="current-password"
          [(value)]="current"
          [error]="errors().current"
        />
        <app-new-password-fields
          fieldId="password-new"
          [label]="'account.password.new' | transloco"
          [(password)]="next"
          [error]="errors().next"
          repeatId="password-repeat"
          [repeatLabel]="'account.password.repeat' | transloco"
          [(repeat)]="repeat"
          [repeatError]="errors().repeat"
        />
        @if (failure(); as message) {
          <app-error-alert
            [heading]="'account.password.failed' | transloco"
            [message]="message"
            [retryable]="false"
          />
        }
        <p class="status-line" role="status">{{ done() ? ('account.password.done' | transloco) : '' }}</p>
        <p class="buttons">
          <button type="submit" class="button button-primary" [disabled]="busy()">
            {{ (busy() ? 'account.password.submitting' : 'account.password.submit') | transloco }}
          </button>
        </p>
      </form>
    </section>
  `,
  styles: `
    .lead {
      margin: 0.25rem 0 1rem;
    }
  `,
})
export class PasswordFormComponent {
  private readonly api = inject(AccountApi);
  private readonly session = inject(SessionStore);
  protected readonly username = computed(() => this.session.user()?.username ?? '');
  private readonly focus = injectFocus();

  protected readonly current = signal('');
  protected readonly next = signal('');
  protected readonly repeat = signal('');
  /** Set by a submit; from then on the errors follow the typing. */
  private readonly submitted = signal(false);
  protected readonly errors = errorsOnceSubmitted(this.submitted, (): PasswordErrors => ({
    current: this.current() === '' ? t('account.password.currentMissing') : undefined,
    next: passwordProblem(this.next()),
    repeat: this.repeat() !== this.next() ? t('account.password.mismatch') : undefined,
  }));
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly done = signal(false);
  protected readonly busy = signal(false);

  protected async submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    this.failure.set(undefined);
    this.done.set(false);
    if (!fieldsValidOnSubmit(this.submitted, this.errors, this.focus)) return;

    await whileBusy(
      this.busy,
      async () => {
        const body: ChangePasswordRequest = { current_password: this.current(), new_password: this.next() };
        await this.session.renewing(this.api.changePassword(body));
        this.submitted.set(false);
        this.current.set('');
        this.next.set('');
        this.repeat.set('');
        this.done.set(true);
      },
      (error) => this.failure.set(error.message),
    );
  }
}
