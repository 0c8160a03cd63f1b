import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { roleLabel } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { PasswordFormComponent } from './password-form.component';
import { SecondFactorComponent } from './second-factor.component';

/** `/account`: the signed-in person's own account: password and second factor. */
@Component({
  selector: 'app-account-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [PasswordFormComponent, SecondFactorComponent, TranslocoPipe],
  template: `
    <div class="page-heading">
      <h1>{{ 'account.title' | transloco }}</h1>
    </div>

    @if (user(); as user) {
      <div class="stack">
        <section class="panel" aria-labelledby="profile-heading">
          <h2 id="profile-heading" class="visually-hidden">{{ 'account.profile.heading' | transloco }}</h2>
          <dl class="facts">
            <div>
              <dt>{{ 'account.profile.username' | transloco }}</dt>
              <dd data-testid="account-username">{{ user.username }}</dd>
            </div>
            <div>
              <dt>{{ 'account.profile.role' | transloco }}</dt>
              <dd data-testid="account-role">{{ role() }}</dd>
            </div>
          </dl>
        </section>
        <app-password-form />
        <app-second-factor [user]="user" />
      </div>
    } @else if (viaApiKey()) {
      <section class="panel" data-testid="account-api-key">
        <h2>{{ 'account.apiKey.heading' | transloco }}</h2>
        <p class="explain">{{ 'account.apiKey.explain' | transloco }}</p>
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
