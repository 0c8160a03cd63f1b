import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';

import { roleLabel } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { PasswordFormComponent } from './password-form.component';
import { SecondFactorComponent } from './second-factor.component';

/** `/account`: the signed-in person's own account: password and second factor. */
@Component({
  selector: 'app-account-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PasswordFormComponent, SecondFactorComponent],
  template: `
    <div class="page-heading">
      <h1>Account</h1>
    </div>

    @if (user(); as user) {
      <div class="stack">
        <section class="panel" aria-labelledby="profile-heading">
          <h2 id="profile-heading" class="visually-hidden">Who you are</h2>
          <dl class="facts">
            <div>
              <dt>Username</dt>
              <dd data-testid="account-username">{{ user.username }}</dd>
            </div>
            <div>
              <dt>Role</dt>
              <dd data-testid="account-role">{{ role() }}</dd>
            </div>
          </dl>
        </section>
        <app-password-form />
        <app-second-factor [user]="user" />
      </div>
    } @else if (viaApiKey()) {
      <section class="panel" data-testid="account-api-key">
        <h2>Signed in with the API key</h2>
        <p class="explain">
          The API key acts as an administrator but belongs to no account, so there is no password or second
          factor to manage here. Sign in with an account to change those.
        </p>
      </section>
    }
  `,
  styles: `
    .stack {
      display: grid;
      gap: 1.25rem;
    }
    .explain {
      margin: 0.5rem 0 0;
    }
  `,
})
export class AccountPageComponent {
  private readonly session = inject(SessionStore);

  protected readonly user = this.session.user;
  protected readonly viaApiKey = computed(() => this.session.via() === 'api_key');
  protected readonly role = computed(() => {
    const user = this.user();
    return user ? roleLabel(user.role) : '';
  });
}
