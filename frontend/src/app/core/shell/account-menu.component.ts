import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  afterNextRender,
  Injector,
  inject,
  input,
  output,
  signal,
  viewChild,
} from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

/** Who is signed in, as the header shows it. */
export interface SignedIn {
  readonly name: string;
  readonly role: string;
  readonly canSignOut: boolean;
}

/**
 * The signed-in account's name in the header, as a menu button: the role as text, Account, and Sign
 * out (when the session can sign out). Arrow keys, Home and End move through the items; Escape closes
 * the menu and puts the focus back on the button; a click elsewhere or Tab closes it too.
 */
@Component({
  selector: 'app-account-menu',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe],
  host: { '(document:click)': 'clickedSomewhere($event)', '(keydown)': 'key($event)' },
  template: `
    <button
      #button
      type="button"
      class="menu-button"
      aria-haspopup="menu"
      [attr.aria-expanded]="open()"
      aria-controls="account-menu"
      data-testid="account-menu-button"
      (click)="toggle()"
    >
      <span class="visually-hidden">{{ 'app.who.signedInAs' | transloco }} </span>
      <span class="who-name" data-testid="header-username">{{ who().name }}</span>
      <svg class="caret" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
        <path d="M2.5 4.5 6 8l3.5-3.5" fill="none" stroke="currentColor" stroke-width="1.6" />
      </svg>
    </button>
    <div class="popup" [hidden]="!open()">
      <p class="who-role-line">
        {{ 'app.who.roleLabel' | transloco }}
        <span class="who-role" data-testid="header-role">{{ who().role }}</span>
      </p>
      <ul
        #menu
        id="account-menu"
        role="menu"
        [attr.aria-label]="'app.accountMenu.label' | transloco"
        data-testid="account-menu"
      >
        <li role="none">
          <a role="menuitem" tabindex="-1" routerLink="/account" (click)="close(false)">{{
            'app.nav.account' | transloco
          }}</a>
        </li>
        @if (who().canSignOut) {
          <li role="none">
            <button
              type="button"
              role="menuitem"
              tabindex="-1"
              [disabled]="signingOut()"
              (click)="choseSignOut()"
            >
              {{ (signingOut() ? 'app.signingOut' : 'app.signOut') | transloco }}
            </button>
          </li>
        }
      </ul>
    </div>
  `,
  styles: `
    :host {
      position: relative;
      display: inline-flex;
    }
    .menu-button {
      display: inline-flex;
      align-items: center;
      gap: 0.35rem;
      max-inline-size: 16rem;
      padding: 0.4rem 0.7rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
      font: inherit;
      cursor: pointer;
    }
    .menu-button:hover,
    .menu-button[aria-expanded='true'] {
      background: var(--hover);
    }
    .who-name {
      overflow: hidden;
      font-weight: 600;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .caret {
      flex: none;
      inline-size: 0.75rem;
      block-size: 0.75rem;
    }
    .popup {
      position: absolute;
      inset-block-start: calc(100% + 0.35rem);
      inset-inline-end: 0;
      z-index: 20;
      min-inline-size: 13rem;
      padding: 0.4rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      box-shadow: var(--shadow);
    }
    .popup[hidden] {
      display: none;
    }
    .who-role-line {
      margin: 0 0 0.35rem;
      padding: 0.35rem 0.6rem 0.5rem;
      border-block-end: 1px solid var(--border);
      color: var(--text-muted);
      font-size: 0.85rem;
    }
    .who-role {
      color: var(--text);
      font-weight: 600;
    }
    ul {
      margin: 0;
      padding: 0;
      list-style: none;
    }
    [role='menuitem'] {
      display: block;
      inline-size: 100%;
      padding: 0.45rem 0.6rem;
      border: 0;
      border-radius: var(--radius);
      background: none;
      color: var(--text);
      font: inherit;
      text-align: start;
      text-decoration: none;
      cursor: pointer;
    }
    [role='menuitem']:hover,
    [role='menuitem']:focus-visible {
      background: var(--hover);
    }
  `,
})
export class AccountMenuComponent {
  readonly who = input.required<SignedIn>();
  readonly signingOut = input(false);
  readonly signOut = output<void>();

  protected readonly open = signal(false);

  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly injector = inject(Injector);
  private readonly button = viewChild.required<ElementRef<HTMLButtonElement>>('button');
  private readonly menu = viewChild.required<ElementRef<HTMLElement>>('menu');

  protected toggle(): void {
    if (this.open()) this.close(true);
    else this.show(0);
  }

  /** Closes the menu; with `refocus`, the focus goes back to the button. */
  close(refocus: boolean): void {
    if (!this.open()) return;
    this.open.set(false);
    if (refocus) this.button().nativeElement.focus();
  }

  protected choseSignOut(): void {
    this.close(true);
    this.signOut.emit();
  }

  protected clickedSomewhere(event: MouseEvent): void {
    if (this.open() && !this.host.nativeElement.contains(event.target as Node | null)) this.close(false);
  }

  protected key(event: KeyboardEvent): void {
    const onButton = event.target === this.button().nativeElement;
    if (onButton && !this.open() && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
      event.preventDefault();
      this.show(event.key === 'ArrowDown' ? 0 : -1);
      return;
    }
    if (!this.open()) return;
    const items = this.items();
    const at = items.indexOf(event.target as HTMLElement);
    switch (event.key) {
      case 'Escape':
        event.preventDefault();
        event.stopPropagation();
        this.close(true);
        return;
      case 'Tab':
        this.close(false);
        return;
      case 'ArrowDown':
        event.preventDefault();
        items[(at + 1) % items.length]?.focus();
        return;
      case 'ArrowUp':
        event.preventDefault();
        items[(at - 1 + items.length) % items.length]?.focus();
        return;
      case 'Home':
        event.preventDefault();
        items[0]?.focus();
        return;
      case 'End':
        event.preventDefault();
        items[items.length - 1]?.focus();
        return;
    }
  }

  /** Opens the menu with the focus on item `index` (negative: counted from the end). */
  private show(index: number): void {
    this.open.set(true);
    afterNextRender(
      () => {
        const items = this.items();
        items[index < 0 ? items.length + index : index]?.focus();
      },
      { injector: this.injector },
    );
  }

  private items(): HTMLElement[] {
    return [...this.menu().nativeElement.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])')];
  }
}
