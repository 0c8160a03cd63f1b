import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  ElementRef,
  afterNextRender,
  computed,
  effect,
  inject,
  signal,
  viewChild,
  Injector,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NavigationEnd, Router, RouterLink } from '@angular/router';
import { filter, map } from 'rxjs';

import { TranslocoPipe } from '@jsverse/transloco';

import { ApiClient } from '../api/api-client.service';
import { SessionStore } from '../session/session.store';

/** Raise this when the tour changes enough to show it again to everyone. */
export const TOUR_VERSION = 1;

interface TourStep {
  readonly id: string;
  readonly link: string;
  /** Shown only to administrators (the steps about creating sensors). */
  readonly adminOnly?: boolean;
  /** The `data-tour` element on the page the step points at (outlined while the step is shown). */
  readonly target?: string;
}

/** Each step's title, text and link label are the catalogue's `tour.steps.<id>.*`. */
const STEPS: readonly TourStep[] = [
  { id: 'status', link: '/' },
  { id: 'addSensor', link: '/sensors/new', adminOnly: true, target: 'add-sensor' },
  { id: 'firstSensor', link: '/', adminOnly: true, target: 'first-sensor' },
  { id: 'incidents', link: '/incidents' },
  { id: 'sites', link: '/sites' },
  { id: 'settings', link: '/settings' },
];

/** The class the pointed-at element wears (styles.css). */
const TARGET_CLASS = 'tour-target';

/**
 * A short first-run tour for signed-in accounts that have not finished this {@link TOUR_VERSION}
 * (session `ui.tour_version`). Finishing or skipping it (also with Escape) is recorded with
 * `POST /api/onboarding/tour`, so it is not shown again; focus goes back where it was.
 * It sits in the page flow above the Status page (covers nothing) and takes the focus when it appears.
 */
@Component({
  selector: 'app-tour',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe],
  host: { '(keydown.escape)': 'escape()' },
  template: `
    @if (visible()) {
      <section
        #dialog
        class="tour"
        [attr.aria-label]="'tour.label' | transloco"
        aria-describedby="tour-text"
        tabindex="-1"
        data-testid="tour"
      >
        <p class="tour-progress">
          {{ 'tour.progress' | transloco: { step: index() + 1, steps: steps().length } }}
        </p>
        <h2 id="tour-title">{{ 'tour.steps.' + step().id + '.title' | transloco }}</h2>
        <p id="tour-text">{{ 'tour.steps.' + step().id + '.text' | transloco }}</p>
        <p>
          <a [routerLink]="step().link">{{ 'tour.steps.' + step().id + '.link' | transloco }}</a>
        </p>
        <div class="buttons">
          @if (index() > 0) {
            <button type="button" class="button" (click)="index.set(index() - 1)">
              {{ 'tour.back' | transloco }}
            </button>
          }
          @if (last()) {
            <button type="button" class="button button-primary" (click)="close()">
              {{ 'tour.finish' | transloco }}
            </button>
          } @else {
            <button type="button" class="button button-primary" (click)="index.set(index() + 1)">
              {{ 'tour.next' | transloco }}
            </button>
          }
          <button type="button" class="button" (click)="close()">{{ 'tour.skip' | transloco }}</button>
        </div>
      </section>
    }
  `,
  styles: `
    .tour {
      margin: 0 0 1.25rem;
      padding: 1rem 1.25rem;
      border: 1px solid var(--border-strong);
      border-inline-start: 4px solid var(--accent);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
      box-shadow: var(--shadow);
    }
    .tour:focus {
      outline: 2px solid var(--focus);
      outline-offset: 2px;
    }
    h2 {
      margin: 0 0 0.25rem;
      font-size: 1.1rem;
    }
    .tour-progress {
      margin: 0;
      color: var(--text-muted);
      font-size: 0.85rem;
    }
    a {
      color: var(--accent-text);
    }
  `,
})
export class TourComponent {
  private readonly api = inject(ApiClient);
  private readonly session = inject(SessionStore);
  private readonly document = inject(DOCUMENT);
  private readonly injector = inject(Injector);
  private readonly router = inject(Router);
  /** The path shown; the tour appears on the Status page (where a first sign-in lands). */
  private readonly path = toSignal(
    this.router.events.pipe(
      filter((event): event is NavigationEnd => event instanceof NavigationEnd),
      map((event) => event.urlAfterRedirects.split(/[?#]/, 1)[0]),
    ),
    { initialValue: this.router.url.split(/[?#]/, 1)[0] },
  );

  protected readonly steps = computed(() =>
    STEPS.filter((step) => !step.adminOnly || this.session.isAdmin()),
  );
  protected readonly index = signal(0);
  protected readonly step = computed(() => this.steps()[Math.min(this.index(), this.steps().length - 1)]);
  protected readonly last = computed(() => this.index() >= this.steps().length - 1);

  /** Closed in this page load (the server is told too). */
  private readonly dismissed = signal(false);
  private returnFocus: HTMLElement | null = null;

  protected readonly visible = computed(() => {
    const info = this.session.info();
    return (
      !this.dismissed() &&
      this.path() === '/' &&
      !!info?.authenticated &&
      !!info.user &&
      (info.ui?.tour_version ?? 0) < TOUR_VERSION
    );
  });

  private readonly dialog = viewChild<ElementRef<HTMLElement>>('dialog');

  constructor() {
    effect(() => {
      if (!this.visible()) return;
      const active = this.document.activeElement;
      this.returnFocus = active instanceof HTMLElement && active !== this.document.body ? active : null;
      afterNextRender(() => this.dialog()?.nativeElement.focus(), { injector: this.injector });
    });
    // Outlines the element the step points at, when the page shows it (the empty state may not be).
    effect((onCleanup) => {
      const target = this.visible() ? this.step().target : undefined;
      if (!target) return;
      const element = this.document.querySelector(`[data-tour="${target}"]`);
      element?.classList.add(TARGET_CLASS);
      onCleanup(() => element?.classList.remove(TARGET_CLASS));
    });
  }

  protected escape(): void {
    if (this.visible()) this.close();
  }

  /** Finished or skipped: either way this version is not shown again. */
  protected close(): void {
    this.dismissed.set(true);
    const target = this.returnFocus ?? this.document.getElementById('main');
    target?.focus();
    this.api.post('/api/onboarding/tour', { version: TOUR_VERSION }).then(
      () => void this.session.reload().catch(() => undefined),
      () => undefined, // Shown again on the next visit: nothing is lost.
    );
  }
}
