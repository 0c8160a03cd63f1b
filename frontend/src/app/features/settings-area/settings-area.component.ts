import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { SETTINGS_NAV } from '../../app.navigation';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';

/**
 * `/settings/…`: the frame of the Settings area, a sub-navigation over its pages (Settings, Accounts,
 * Administration, About), each entry shown to the roles its page is for. Tabs on wide screens, a
 * stacked list on phones.
 */
@Component({
  selector: 'app-settings-area',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, RouterLinkActive, RouterOutlet, TranslocoPipe],
  template: `
    <nav class="sections" [attr.aria-label]="'app.settingsNav.label' | transloco" data-testid="settings-nav">
      <ul>
        @for (item of entries(); track item.path) {
          <li>
            <a
              [routerLink]="item.path"
              routerLinkActive="active"
              ariaCurrentWhenActive="page"
              [routerLinkActiveOptions]="{ exact: item.exact }"
              [attr.data-label]="item.label | transloco"
              >{{ item.label | transloco }}</a
            >
          </li>
        }
      </ul>
    </nav>
    <router-outlet />
  `,
  styles: `
    .sections {
      margin: 0 0 1.5rem;
      border-block-end: 1px solid var(--border);
    }
    ul {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }
    a {
      display: inline-block;
      padding: 0.55rem 0.9rem;
      border-radius: var(--radius) var(--radius) 0 0;
      color: var(--text-muted);
      font-weight: 500;
      text-decoration: none;
      /* The underline marks the active tab without relying on colour. */
      box-shadow: inset 0 -3px 0 transparent;
    }
    /* Reserves the width of the bold label so the active tab does not shift its neighbours. */
    a::after {
      content: attr(data-label);
      display: block;
      block-size: 0;
      overflow: hidden;
      visibility: hidden;
      font-weight: 650;
    }
    a:hover {
      background: var(--hover);
      color: var(--text);
    }
    a.active {
      color: var(--text);
      font-weight: 650;
      box-shadow: inset 0 -3px 0 var(--accent);
    }
    /* Phones: one entry a line, the active one marked at its start. */
    @media (max-width: 45rem) {
      .sections {
        border: 1px solid var(--border);
        border-radius: var(--radius);
      }
      ul {
        flex-direction: column;
        gap: 0;
      }
      a {
        display: block;
        border-radius: 0;
        box-shadow: inset 3px 0 0 transparent;
      }
      a.active {
        box-shadow: inset 4px 0 0 var(--accent);
      }
    }
  `,
})
export class SettingsAreaComponent {
  private readonly session = inject(SessionStore);

  protected readonly entries = computed(() => {
    const role = this.session.role();
    return SETTINGS_NAV.filter((item) => !item.minRole || hasRole(role, item.minRole));
  });
}
