import { ChangeDetectionStrategy, Component, DestroyRef, ElementRef, inject, viewChild } from '@angular/core';
import { NavigationEnd, Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';

import { MAIN_NAV } from './app.navigation';
import { PRODUCT_NAME } from './core/title/page-title.strategy';

/** The product frame: skip link, header with the main navigation, and the routed page. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterOutlet, RouterLink, RouterLinkActive],
  templateUrl: './app.component.html',
  styleUrl: './app.component.css',
})
export class AppComponent {
  protected readonly productName = PRODUCT_NAME;
  protected readonly nav = MAIN_NAV;

  private readonly main = viewChild.required<ElementRef<HTMLElement>>('main');

  constructor() {
    // After an in-app navigation, move focus to the new page so screen readers announce it
    // and keyboard users continue from the top of the content.
    const router = inject(Router);
    let first = true;
    const subscription = router.events.subscribe((event) => {
      if (!(event instanceof NavigationEnd)) return;
      if (first) {
        first = false;
        return;
      }
      this.main().nativeElement.focus({ preventScroll: true });
    });
    inject(DestroyRef).onDestroy(() => subscription.unsubscribe());
  }

  protected skipToMain(event: Event): void {
    event.preventDefault();
    this.main().nativeElement.focus();
  }
}
