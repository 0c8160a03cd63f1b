import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  Injector,
  afterNextRender,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, Router, type Params } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { SensorStatus } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { around } from '../../core/i18n/emphasis';
import { statusDisplay } from '../sensor-detail/sensor-status';
import { CARD_HEIGHT, SensorCardComponent } from './sensor-card.component';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';

/** Space between cards (px). */
const GAP = 12;
/** Cards are at least this wide (px); narrower screens get one card per row. */
const MIN_CARD_WIDTH = 290;
const ROW_HEIGHT = CARD_HEIGHT + GAP;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 2;
/** How long a just-created sensor stays marked (ms). */
const HIGHLIGHT_MS = 6_000;

const STATUSES: readonly SensorStatus[] = ['up', 'warn', 'down', 'paused', 'unknown'];
const FILTER_KEYS = ['q', 'status', 'group', 'tag', 'site'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];
type Filters = Readonly<Record<FilterKey, string>>;

const sameRows = (a: readonly SensorRow[], b: readonly SensorRow[]): boolean =>
  a.length === b.length && a.every((row, index) => row === b[index]);

const distinct = (values: Iterable<string>): string[] =>
  [...new Set(values)].filter((value) => value !== '').sort((a, b) => a.localeCompare(b));

/**
 * The sensors as a grid of cards (one per row on narrow screens), filtered by text, status, group,
 * tag and site (kept in the URL), in dashboard order. Only the rows in view are drawn: every card
 * has the same height, so the visible slice follows from the scroll position.
 */
@Component({
  selector: 'app-sensor-grid',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe, ErrorAlertComponent, SensorCardComponent],
  templateUrl: './sensor-grid.component.html',
  styles: `
    :host {
      display: block;
      margin-block-start: 0.75rem;
    }
    .filters {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem 0.75rem;
      align-items: end;
    }
    .filters .field {
      margin: 0;
      flex: 1 1 9rem;
    }
    .filters .field:first-child {
      flex: 2 1 14rem;
    }
    .counts {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      margin: 0.75rem 0;
      padding: 0;
      list-style: none;
      font-size: 0.9rem;
    }
    .counts [data-status='up'] .status-symbol {
      color: var(--success);
    }
    .counts [data-status='down'] .status-symbol {
      color: var(--danger);
    }
    .viewport {
      overflow-y: auto;
      overscroll-behavior: contain;
      max-block-size: 75vh;
    }
    .viewport:focus-visible {
      outline: 2px solid var(--focus);
      outline-offset: 2px;
    }
    .spacer {
      position: relative;
    }
    .grid {
      display: grid;
      grid-auto-rows: ${CARD_HEIGHT}px;
      gap: ${GAP}px;
      margin: 0;
      padding: 2px;
      list-style: none;
      will-change: transform;
    }
    .empty,
    .hint {
      color: var(--text-muted);
      font-size: 0.9rem;
    }
  `,
})
export class SensorGridComponent {
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly session = inject(SessionStore);
  private readonly store = inject(StatusSensorsStore);
  private readonly injector = inject(Injector);

  readonly rows = input.required<readonly SensorRow[]>();
  /** A sensor to bring into view and mark for a moment (the one just created). */
  readonly highlight = input<number | undefined>(undefined);
  /** The sensor marked now. */
  protected readonly marked = signal<number | undefined>(undefined);
  private highlighted: number | undefined;

  protected readonly statuses = STATUSES;
  protected readonly display = statusDisplay;
  protected readonly canOperate = computed(() => hasRole(this.session.role(), 'operator'));
  protected readonly canReorder = computed(() => hasRole(this.session.role(), 'admin'));

  private readonly viewport = viewChild.required<ElementRef<HTMLElement>>('viewport');
  private readonly scrollTop = signal(0);
  private readonly viewportHeight = signal(800);
  private readonly width = signal(1000);
  protected readonly moving = signal(false);
  protected readonly said = signal('');
  protected readonly orderError = signal<string | undefined>(undefined);
  protected readonly dropTarget = signal<number | undefined>(undefined);
  private dragged: number | undefined;

  private readonly params = toSignal(this.route.queryParamMap, {
    initialValue: this.route.snapshot.queryParamMap,
  });
  protected readonly filters = computed<Filters>(() => {
    const params = this.params();
    return {
      q: params.get('q') ?? '',
      status: params.get('status') ?? '',
      group: params.get('group') ?? '',
      tag: params.get('tag') ?? '',
      site: params.get('site') ?? '',
    };
  });

  /** The group, tag and site filters, each offering the values the sensors have. */
  protected readonly listFilters = computed(() => {
    const sensors = this.rows().map((row) => row.sensor());
    return [
      {
        key: 'group' as const,
        label: t('status.grid.group'),
        all: t('status.grid.allGroups'),
        options: distinct(sensors.map((s) => s.group)),
      },
      {
        key: 'tag' as const,
        label: t('status.grid.tag'),
        all: t('status.grid.allTags'),
        options: distinct(sensors.flatMap((s) => s.tags)),
      },
      {
        key: 'site' as const,
        label: t('status.grid.site'),
        all: t('status.grid.allSites'),
        options: distinct(sensors.map((s) => s.site)),
      },
    ];
  });

  /** The sensors matching every filter but the status one (the counts are of these). */
  private readonly matching = computed(
    () => {
      const { q, group, tag, site } = this.filters();
      const needle = q.trim().toLowerCase();
      return this.rows().filter((row) => {
        const s = row.sensor();
        if (group && s.group !== group) return false;
        if (tag && !s.tags.includes(tag)) return false;
        if (site && s.site !== site) return false;
        if (!needle) return true;
        return (
          s.name.toLowerCase().includes(needle) ||
          s.target.toLowerCase().includes(needle) ||
          s.group.toLowerCase().includes(needle) ||
          s.tags.some((t) => t.toLowerCase().includes(needle))
        );
      });
    },
    { equal: sameRows },
  );

  protected readonly counts = computed(() => {
    const counts: Record<SensorStatus | 'all', number> = {
      all: 0,
      up: 0,
      warn: 0,
      down: 0,
      paused: 0,
      unknown: 0,
    };
    for (const row of this.matching()) {
      counts.all++;
      counts[row.sensor().status]++;
    }
    return counts;
  });

  protected readonly shown = computed(
    () => {
      const status = this.filters().status;
      const matching = this.matching();
      return status ? matching.filter((row) => row.sensor().status === status) : matching;
    },
    { equal: sameRows },
  );

  /** "Showing {shown} of {all}" around the number shown, which is bold. */
  protected readonly showing = computed(() =>
    around('status.grid.showing', 'shown', { all: this.counts().all }),
  );

  protected readonly columns = computed(() =>
    Math.max(1, Math.floor((this.width() - 4 + GAP) / (MIN_CARD_WIDTH + GAP))),
  );
  private readonly rowCount = computed(() => Math.ceil(this.shown().length / this.columns()));
  protected readonly totalHeight = computed(() => Math.max(0, this.rowCount() * ROW_HEIGHT - GAP + 4));

  protected readonly windowed = computed(() => {
    const columns = this.columns();
    const top = this.scrollTop();
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rowCount(), Math.ceil((top + this.viewportHeight()) / ROW_HEIGHT) + OVERSCAN);
    return {
      rows: this.shown().slice(first * columns, last * columns),
      offset: first * ROW_HEIGHT,
    };
  });

  constructor() {
    const destroyRef = inject(DestroyRef);
    afterNextRender(() => {
      const element = this.viewport().nativeElement;
      const measure = () => {
        this.width.set(element.clientWidth);
        this.viewportHeight.set(Math.max(element.clientHeight, ROW_HEIGHT));
      };
      measure();
      const observer = new ResizeObserver(measure);
      observer.observe(element);
      destroyRef.onDestroy(() => observer.disconnect());
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    destroyRef.onDestroy(() => clearTimeout(timer));
    effect(() => {
      const id = this.highlight();
      if (id === undefined || id === this.highlighted) return;
      const row = this.shown().find((r) => r.id === id);
      if (!row) return;
      this.highlighted = id;
      untracked(() => {
        this.marked.set(id);
        this.said.set(t('status.grid.added', { name: row.sensor().name }));
        afterNextRender(() => this.reveal(id), { injector: this.injector });
      });
      clearTimeout(timer);
      timer = setTimeout(() => this.marked.set(undefined), HIGHLIGHT_MS);
    });
  }

  /** Draws the rows around sensor `id` and scrolls its card into the middle of the window. */
  private reveal(id: number): void {
    const index = this.shown().findIndex((r) => r.id === id);
    if (index < 0) return;
    const element = this.viewport().nativeElement;
    element.scrollTop = Math.max(0, Math.floor(index / this.columns()) * ROW_HEIGHT - ROW_HEIGHT);
    this.scrollTop.set(element.scrollTop);
    afterNextRender(
      () =>
        element
          .querySelector<HTMLElement>(`[data-testid="sensor-row-${id}"]`)
          ?.scrollIntoView({ block: 'center' }),
      { injector: this.injector },
    );
  }

  protected onScroll(): void {
    this.scrollTop.set(this.viewport().nativeElement.scrollTop);
  }

  protected setFilter(key: FilterKey, value: string): void {
    const queryParams: Params = {};
    for (const name of FILTER_KEYS) {
      const current = name === key ? value : this.filters()[name];
      queryParams[name] = current === '' ? null : current;
    }
    void this.router.navigate([], {
      relativeTo: this.route,
      queryParams,
      queryParamsHandling: 'merge',
      replaceUrl: true,
    });
    const element = this.viewport().nativeElement;
    element.scrollTop = 0;
    this.scrollTop.set(0);
  }

  /** Moves a card one place among the cards shown (keyboard buttons). */
  protected move(row: SensorRow, delta: -1 | 1): void {
    const shown = this.shown();
    const neighbour = shown[shown.indexOf(row) + delta];
    if (!neighbour) return;
    void this.place(
      row.id,
      neighbour.id,
      delta > 0 ? 'after' : 'before',
      delta > 0 ? 'move-down' : 'move-up',
    );
  }

  protected dragStart(event: DragEvent, row: SensorRow): void {
    if (!this.canReorder()) return;
    this.dragged = row.id;
    event.dataTransfer?.setData('text/plain', row.sensor().name);
    if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
  }

  protected dragEnd(): void {
    this.dragged = undefined;
    this.dropTarget.set(undefined);
  }

  protected dragOver(event: DragEvent, row: SensorRow): void {
    if (this.dragged === undefined || this.dragged === row.id) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'move';
    this.dropTarget.set(row.id);
  }

  protected drop(event: DragEvent, row: SensorRow): void {
    const dragged = this.dragged;
    this.dragEnd();
    if (dragged === undefined || dragged === row.id) return;
    event.preventDefault();
    const shown = this.shown();
    const from = shown.findIndex((r) => r.id === dragged);
    const to = shown.indexOf(row);
    void this.place(dragged, row.id, from < to ? 'after' : 'before');
  }

  /** Puts sensor `id` before or after `anchor` in the full order and saves it. */
  private async place(id: number, anchor: number, where: 'before' | 'after', focus?: string): Promise<void> {
    const ids = this.rows()
      .map((row) => row.id)
      .filter((other) => other !== id);
    const at = ids.indexOf(anchor);
    if (at < 0) return;
    ids.splice(where === 'before' ? at : at + 1, 0, id);
    const row = this.rows().find((r) => r.id === id);
    this.orderError.set(undefined);
    this.moving.set(true);
    try {
      await this.store.reorder(ids);
      const position = this.shown().findIndex((r) => r.id === id) + 1;
      const count = this.shown().length;
      this.said.set(
        row
          ? t('status.grid.moved', { name: row.sensor().name, position, count })
          : t('status.grid.movedUnnamed', { position, count }),
      );
    } catch (failure) {
      this.orderError.set(ApiCallError.from(failure).message);
    } finally {
      this.moving.set(false);
    }
    if (focus) this.keepFocus(id, focus);
  }

  /** After a keyboard move: scrolls the card into view and puts the focus back on its button. */
  private keepFocus(id: number, testId: string): void {
    const index = this.shown().findIndex((r) => r.id === id);
    if (index < 0) return;
    const element = this.viewport().nativeElement;
    const top = Math.floor(index / this.columns()) * ROW_HEIGHT;
    if (top < element.scrollTop || top + ROW_HEIGHT > element.scrollTop + element.clientHeight) {
      element.scrollTop = Math.max(0, top - ROW_HEIGHT);
      this.scrollTop.set(element.scrollTop);
    }
    afterNextRender(
      () => {
        const card = element.querySelector<HTMLElement>(`[data-testid="sensor-row-${id}"]`);
        const wanted = card?.querySelector<HTMLButtonElement>(`[data-testid="${testId}"]`);
        const target =
          wanted && !wanted.disabled
            ? wanted
            : card?.querySelector<HTMLButtonElement>('.move button:not(:disabled)');
        target?.focus();
      },
      { injector: this.injector },
    );
  }
}
