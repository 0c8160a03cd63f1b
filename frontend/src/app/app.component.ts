import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  DestroyRef,
  ElementRef,
  computed,
  effect,
  inject,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { NgTemplateOutlet } from '@angular/common';
import { NavigationEnd, Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { MAIN_NAV, SETTINGS_PATH } from './app.navigation';
import { ApiCallError } from './core/api/api-call-error';
import { t } from './core/i18n/i18n';
import { hasRole, roleLabel } from './core/session/roles';
import { SessionStore } from './core/session/session.store';
import { AccountMenuComponent } from './core/shell/account-menu.component';
import { HealthIndicatorComponent } from './core/shell/health-indicator.component';
import { phoneLayout } from './core/shell/phone-layout';
import { TourComponent } from './core/tour/tour.component';
import { PRODUCT_NAME } from './core/title/page-title.strategy';
import { ThemeApplier } from './features/settings/theme';
import { SearchBoxComponent } from './shared/search/search-box.component';
import { ErrorAlertComponent } from './shared/ui/error-alert.component';

/**
 * The product frame: skip link, header with the main navigation, search, the server's health, the
 * Settings link and the account menu, and the routed page. On phones the header collapses into a Menu
 * button and a panel. Signed out (setup, sign-in), the header shows only the product name.
 */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    AccountMenuComponent,
    HealthIndicatorComponent,
    NgTemplateOutlet,
    RouterOutlet,
    RouterLink,
    RouterLinkActive,
    ErrorAlertComponent,
    SearchBoxComponent,
    TourComponent,
    TranslocoPipe,
  ],
  templateUrl: './app.component.html',
  styleUrl: './app.component.css',
})
export class AppComponent {
  protected readonly productName = PRODUCT_NAME;
  protected readonly settingsPath = SETTINGS_PATH;
  protected readonly phone = phoneLayout();
  protected readonly panelOpen = signal(false);
  protected readonly session = inject(SessionStore);

  protected readonly nav = computed(() => {
    const role = this.session.role();
    return MAIN_NAV.filter((item) => !item.minRole || hasRole(role, item.minRole));
  });

  /** Who is signed in, for the header; undefined while signed out. */
  protected readonly who = computed(() => {
    if (!this.session.authenticated()) return undefined;
    const user = this.session.user();
    if (user) return { name: user.username, role: roleLabel(user.role), canSignOut: true };
    return { name: t('app.who.apiKey'), role: roleLabel('admin'), canSignOut: false };
  });

  protected readonly signingOut = signal(false);
  protected readonly signOutError = signal<string | undefined>(undefined);
  protected readonly retryingSession = signal(false);

  private readonly main = viewChild.required<ElementRef<HTMLElement>>('main');
  private readonly menuButton = viewChild<ElementRef<HTMLButtonElement>>('menuButton');
  private readonly router = inject(Router);
  /** A link in the phone menu was chosen: the navigation it starts leaves the focus on the Menu button. */
  private choseInPanel = false;

  constructor() {
    // The app has started: the boot watchdog of index.html is no longer needed; the account's theme applies.
    inject(DOCUMENT).getElementById('boot-watchdog')?.remove();
    inject(ThemeApplier);

    // After an in-app navigation to another page, move focus to it so screen readers announce it
    // and keyboard users continue from the top of the content. A change of the query string alone
    // (a filter, a chart range) stays on the same page and leaves the focus where it is.
    let previousPath: string | undefined;
    const subscription = this.router.events.subscribe((event) => {
      if (!(event instanceof NavigationEnd)) return;
      const path = event.urlAfterRedirects.split(/[?#]/, 1)[0];
      const samePage = previousPath === undefined || previousPath === path;
      previousPath = path;
      // An entry chosen in the phone menu closes it and gives the focus back to the Menu button.
      const chosenInPanel = this.panelOpen() || this.choseInPanel;
      this.choseInPanel = false;
      if (chosenInPanel) this.closePanel();
      else if (!samePage) this.main().nativeElement.focus({ preventScroll: true });
    });
    inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
    // Growing past phone width (or signing out) leaves no Menu button: the panel is closed.
    effect(() => {
      if (!this.phone() || !this.who()) untracked(() => this.panelOpen.set(false));
    });
  }

  protected togglePanel(): void {
    this.panelOpen.update((open) => !open);
  }

  /** Closes the phone menu and puts the focus back on its button. */
  protected closePanel(): void {
    this.panelOpen.set(false);
    this.menuButton()?.nativeElement.focus();
  }

  protected escapePanel(event: Event): void {
    // Escape in the search box closes its list of hits first; the account menu handles its own.
    if (!this.panelOpen() || event.defaultPrevented) return;
    event.preventDefault();
    this.closePanel();
  }

  /** A link chosen in the panel closes it, also when it leads to the page already shown. */
  protected clickedInPanel(event: MouseEvent): void {
    const link = (event.target as Element | null)?.closest('a[href]');
    if (!link) return;
    this.choseInPanel = link.getAttribute('href') !== this.router.url;
    this.closePanel();
  }

  protected skipToMain(event: Event): void {
    event.preventDefault();
    this.main().nativeElement.focus();
  }

  protected async signOut(): Promise<void> {
    if (this.signingOut()) return;
    this.signingOut.set(true);
    this.signOutError.set(undefined);
    try {
      await this.session.signOut();
    } catch (failure: unknown) {
      this.signOutError.set(ApiCallError.from(failure).message);
    } finally {
      this.signingOut.set(false);
    }
  }

  protected async retrySession(): Promise<void> {
    this.retryingSession.set(true);
    try {
      await this.session.retry();
    } catch {
      // The error stays on screen (SessionStore.loadError).
    } finally {
      this.retryingSession.set(false);
    }
  }
}
