import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { Router } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { SearchHit, SearchKind, SearchResponse } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { inputValue } from '../forms/form-helpers';
import { isShortcut } from '../keyboard/text-field';
import { SEARCH_MAX_LENGTH, SEARCH_MIN_LENGTH, SearchService } from './search.service';

const DELAY_MS = 250;

const KINDS: readonly SearchKind[] = ['sensor', 'site', 'channel', 'incident', 'result', 'user'];

interface Option {
  readonly hit: SearchHit;
  readonly index: number;
  readonly id: string;
}

/**
 * The global search in the header (a combobox with a grouped list box). `/` focuses it from
 * anywhere but a text field; arrows move through the hits, Enter opens one, Escape closes the list.
 */
@Component({
  selector: 'app-search-box',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  templateUrl: './search-box.component.html',
  styleUrl: './search-box.component.css',
  host: {
    '(document:keydown)': 'shortcut($event)',
    '(focusout)': 'focusLeft($event)',
  },
})
export class SearchBoxComponent {
  private readonly search = inject(SearchService);
  private readonly router = inject(Router);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly input = viewChild.required<ElementRef<HTMLInputElement>>('input');

  protected readonly maxLength = SEARCH_MAX_LENGTH;
  protected readonly text = signal('');
  protected readonly open = signal(false);
  protected readonly loading = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly response = signal<{ q: string; answer: SearchResponse } | undefined>(undefined);
  protected readonly active = signal(-1);

  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  /** The hits grouped by kind in a fixed order, each with its position in arrow-key order. */
  protected readonly groups = computed(() => {
    const hits = this.response()?.answer.hits ?? [];
    let index = 0;
    return KINDS.map((kind) => ({
      kind,
      options: hits
        .filter((hit) => hit.kind === kind)
        .map((hit): Option => {
          const position = index++;
          return { hit, index: position, id: `search-option-${position}` };
        }),
    })).filter((group) => group.options.length > 0);
  });

  protected readonly options = computed(() => this.groups().flatMap((group) => group.options));
  protected readonly activeId = computed(() => this.options()[this.active()]?.id ?? null);
  protected readonly truncated = computed(() => this.response()?.answer.truncated ?? false);
  /** The list box is shown. */
  protected readonly expanded = computed(() => this.open() && this.options().length > 0);
  /** The pop-up is shown: the list box, or why the search failed. */
  protected readonly popup = computed(
    () => this.open() && (this.response() !== undefined || !!this.failure()),
  );

  /** Announced to screen readers as the answer changes. */
  protected readonly announcement = computed(() => {
    if (this.loading()) return t('search.searching');
    if (this.failure()) return '';
    const count = this.options().length;
    if (!this.response()) return '';
    if (count === 0) return t('search.none');
    return t(this.truncated() ? 'search.countMore' : 'search.count', { count });
  });

  constructor() {
    inject(DestroyRef).onDestroy(() => clearTimeout(this.timer));
  }

  /** `/` anywhere but in a text field focuses the search box. */
  protected shortcut(event: KeyboardEvent): void {
    if (!isShortcut(event, '/')) return;
    event.preventDefault();
    const input = this.input().nativeElement;
    input.focus();
    input.select();
  }

  protected typed(event: Event): void {
    const text = inputValue(event);
    this.text.set(text);
    this.active.set(-1);
    clearTimeout(this.timer);
    const q = text.trim();
    if (q.length < SEARCH_MIN_LENGTH) {
      this.generation++;
      this.response.set(undefined);
      this.failure.set(undefined);
      this.loading.set(false);
      this.open.set(false);
      return;
    }
    this.timer = setTimeout(() => void this.run(q), DELAY_MS);
  }

  protected keydown(event: KeyboardEvent): void {
    const count = this.options().length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (!this.response()) return;
        event.preventDefault();
        this.open.set(true);
        if (count === 0) return;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        const current = this.active();
        this.active.set(current < 0 && step < 0 ? count - 1 : (current + step + count) % count);
        this.scrollActive();
        return;
      }
      case 'Enter': {
        event.preventDefault();
        const option = this.options()[this.active()] ?? (this.open() ? this.options()[0] : undefined);
        if (option) void this.choose(option.hit);
        return;
      }
      case 'Escape':
        if (this.popup()) {
          event.preventDefault();
          this.open.set(false);
          this.active.set(-1);
        } else if (this.text()) {
          event.preventDefault();
          this.clear();
        }
        return;
      default:
        return;
    }
  }

  protected reopen(): void {
    if (this.response() || this.failure()) this.open.set(true);
  }

  /** Closes the list once the focus has left the search box. */
  protected focusLeft(event: FocusEvent): void {
    const next = event.relatedTarget;
    if (next instanceof Node && this.host.nativeElement.contains(next)) return;
    this.open.set(false);
    this.active.set(-1);
  }

  /** Keeps the focus in the text box while an option is clicked. */
  protected keepFocus(event: MouseEvent): void {
    event.preventDefault();
  }

  protected async choose(hit: SearchHit): Promise<void> {
    const q = this.response()?.q ?? this.text().trim();
    const url = await this.search.destination(hit, q);
    this.clear();
    await this.router.navigateByUrl(url);
  }

  protected stateLabel(state: string): string {
    return state ? t(`search.state.${state}`) : '';
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.generation++;
    this.text.set('');
    this.response.set(undefined);
    this.failure.set(undefined);
    this.loading.set(false);
    this.open.set(false);
    this.active.set(-1);
  }

  private async run(q: string): Promise<void> {
    const generation = ++this.generation;
    this.loading.set(true);
    this.failure.set(undefined);
    try {
      const answer = await this.search.search(q);
      if (generation !== this.generation) return;
      this.response.set({ q, answer });
      this.active.set(-1);
      this.open.set(true);
    } catch (failure: unknown) {
      if (generation !== this.generation) return;
      this.response.set(undefined);
      this.failure.set(ApiCallError.from(failure).message);
      this.open.set(true);
    } finally {
      if (generation === this.generation) this.loading.set(false);
    }
  }

  private scrollActive(): void {
    const id = this.activeId();
    if (!id) return;
    queueMicrotask(() =>
      this.host.nativeElement.querySelector(`#${id}`)?.scrollIntoView({ block: 'nearest' }),
    );
  }
}
