import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import {
  ROLES,
  type CreateUserRequest,
  type Role,
  type UpdateUserRequest,
  type UserAccount,
} from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { t } from '../../core/i18n/i18n';
import { around } from '../../core/i18n/emphasis';
import { roleLabel } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import {
  errorsOnceSubmitted,
  fieldsValidOnSubmit,
  injectFocus,
  inputValue,
  passwordHint,
  passwordProblem,
  whileBusy,
} from '../../shared/forms/form-helpers';
import { NewPasswordFieldsComponent } from '../../shared/forms/new-password-fields.component';
import { TextFieldComponent } from '../../shared/forms/text-field.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { AccountsApi } from './accounts.api';

/** The one row form open at a time: a new password, or the confirmation of a delete. */
interface OpenRowForm {
  readonly id: number;
  readonly kind: 'password' | 'delete';
}

/** A message of this page: a catalogue key and its parameters, translated where shown. */
interface Note {
  readonly key: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

interface CreateErrors {
  username?: string;
  password?: string;
}

/** `/accounts` (administrators): every account, with create, role, disable, password reset, delete. */
@Component({
  selector: 'app-accounts-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    DatePipe,
    TextFieldComponent,
    NewPasswordFieldsComponent,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    TranslocoPipe,
  ],
  templateUrl: './accounts-page.component.html',
  styleUrl: './accounts-page.component.css',
})
export class AccountsPageComponent {
  private readonly api = inject(AccountsApi);
  private readonly session = inject(SessionStore);
  private readonly router = inject(Router);
  private readonly focus = injectFocus();

  protected readonly list = loadable(() => this.api.list());
  protected readonly roles = computed<readonly Role[]>(() => this.list.value()?.roles ?? ROLES);
  protected readonly myId = computed(() => this.session.user()?.id);
  protected readonly roleLabel = roleLabel;
  protected readonly passwordHint = computed(() => passwordHint());

  /** The last change's server error, shown verbatim above the table. */
  protected readonly failure = signal<string | undefined>(undefined);
  private readonly status = signal<Note | undefined>(undefined);
  protected readonly statusText = computed(() => {
    const note = this.status();
    return note ? t(note.key, note.params) : '';
  });
  /** The account a change is in flight for. */
  protected readonly busyId = signal<number | undefined>(undefined);
  protected readonly open = signal<OpenRowForm | undefined>(undefined);
  protected readonly resetPassword = signal('');
  protected readonly resetError = signal<string | undefined>(undefined);

  protected readonly newUsername = signal('');
  protected readonly newPassword = signal('');
  protected readonly newRole = signal<Role>('viewer');
  /** Set by a submit; from then on the errors follow the typing. */
  private readonly createSubmitted = signal(false);
  protected readonly createErrors = errorsOnceSubmitted(this.createSubmitted, (): CreateErrors => ({
    username: this.newUsername().trim() === '' ? t('accounts.create.usernameMissing') : undefined,
    password: passwordProblem(this.newPassword()),
  }));
  protected readonly createFailure = signal<string | undefined>(undefined);
  protected readonly creating = signal(false);

  /** The delete question around the account's name, which is shown in bold. */
  protected readonly deleteQuestion = computed(() => {
    return around('accounts.delete.question', 'name');
  });

  protected isOpen(user: UserAccount, kind: OpenRowForm['kind']): boolean {
    const open = this.open();
    return open?.id === user.id && open.kind === kind;
  }

  protected async changeRole(user: UserAccount, event: Event): Promise<void> {
    const select = event.target as HTMLSelectElement;
    const role = inputValue(event) as Role;
    const changed = await this.update(
      user,
      { role },
      {
        key: 'accounts.status.roleChanged',
        params: { name: user.username, role },
      },
    );
    // A refused change leaves the select on the role the account still has.
    if (!changed) select.value = user.role;
  }

  protected toggleDisabled(user: UserAccount): Promise<boolean> {
    const disabled = !user.disabled;
    return this.update(
      user,
      { disabled },
      {
        key: disabled ? 'accounts.status.disabled' : 'accounts.status.enabled',
        params: { name: user.username },
      },
    );
  }

  protected openForm(user: UserAccount, kind: OpenRowForm['kind']): void {
    this.open.set({ id: user.id, kind });
    this.resetPassword.set('');
    this.resetError.set(undefined);
    this.failure.set(undefined);
    this.status.set(undefined);
    this.focus(kind === 'password' ? '#reset-password' : '#confirm-delete');
  }

  /** Closes the row form and returns focus to the button that opened it. */
  protected closeForm(user: UserAccount, kind: OpenRowForm['kind']): void {
    this.open.set(undefined);
    this.focus(`[data-row-actions="${user.id}"] [data-opens="${kind}"]`);
  }

  protected async setPassword(user: UserAccount, event: Event): Promise<void> {
    event.preventDefault();
    const password = this.resetPassword();
    this.resetError.set(passwordProblem(password));
    if (this.resetError()) {
      this.focus('#reset-password');
      return;
    }
    const done = await this.change(user, () => this.api.setPassword(user.id, password));
    if (done) {
      this.open.set(undefined);
      this.status.set({ key: 'accounts.status.passwordSet', params: { name: user.username } });
    }
  }

  protected async remove(user: UserAccount): Promise<void> {
    const done = await this.change(user, () => this.api.remove(user.id));
    if (done) {
      this.open.set(undefined);
      this.status.set({ key: 'accounts.status.deleted', params: { name: user.username } });
      this.list.reload();
    }
  }

  protected async create(event: Event): Promise<void> {
    event.preventDefault();
    if (this.creating()) return;
    const username = this.newUsername().trim();
    this.createFailure.set(undefined);
    this.status.set(undefined);
    if (!fieldsValidOnSubmit(this.createSubmitted, this.createErrors, this.focus, '.create-form')) return;
    await whileBusy(
      this.creating,
      async () => {
        const body: CreateUserRequest = { username, password: this.newPassword(), role: this.newRole() };
        const created = await this.api.create(body);
        this.createSubmitted.set(false);
        this.newUsername.set('');
        this.newPassword.set('');
        this.status.set({
          key: 'accounts.status.created',
          params: { name: created.username, role: created.role },
        });
        this.list.reload();
      },
      (error) => this.createFailure.set(error.message),
    );
  }

  protected selectNewRole(event: Event): void {
    this.newRole.set(inputValue(event) as Role);
  }

  private async update(user: UserAccount, body: UpdateUserRequest, success: Note): Promise<boolean> {
    const done = await this.change(user, () => this.api.update(user.id, body));
    if (done) {
      this.status.set(success);
      this.list.reload();
      if (user.id === this.myId()) void this.afterOwnChange();
    }
    return done;
  }

  /** Your own role changed: read the session again and leave this page if it is no longer yours. */
  private async afterOwnChange(): Promise<void> {
    try {
      await this.session.reload();
    } catch {
      return;
    }
    if (!this.session.isAdmin()) await this.router.navigateByUrl('/');
  }

  /** Runs one change of one account; a failure is shown above the table. */
  private async change(user: UserAccount, call: () => Promise<unknown>): Promise<boolean> {
    if (this.busyId() !== undefined) return false;
    this.busyId.set(user.id);
    this.failure.set(undefined);
    this.status.set(undefined);
    try {
      await call();
      return true;
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
      return false;
    } finally {
      this.busyId.set(undefined);
    }
  }
}
