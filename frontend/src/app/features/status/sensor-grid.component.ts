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
import { CARD_HEIGHT, SensorCardComponent } from './sensor-card.component';
import {
  SensorFiltersComponent,
  type FilterKey,
  type Filters,
  type ListFilter,
} from './sensor-filters.component';
import { SensorListRowComponent } from './sensor-list-row.component';
import { SensorWallComponent } from './sensor-wall.component';
import { StatusPreferences } from './status-preferences';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';
import { boardLayout, ordered, visibleRows } from './status-view';
import { SummaryBarComponent, type StatusCounts } from './summary-bar.component';
import { ViewSwitchesComponent } from './view-switches.component';
import { WindowScroll } from './window-scroll';

/** Rows drawn above and below the visible ones. */
const OVERSCAN = 3;
/** How long a just-created sensor stays marked (ms). */
const HIGHLIGHT_MS = 6_000;
const FILTER_KEYS: readonly FilterKey[] = ['q', 'status', 'group', 'tag', 'site'];

const sameRows = (a: readonly SensorRow[], b: readonly SensorRow[]): boolean =>
  a.length === b.length && a.every((row, index) => row === b[index]);

/** The order of localeCompare; one collator, as localeCompare would set one up for each comparison. */
const collator = new Intl.Collator();

const distinct = (values: Iterable<string>): string[] =>
  [...new Set(values)].filter((value) => value !== '').sort(collator.compare);

/**
 * The sensors in the account's density (cards, list or wall) and order (problems first or saved),
 * under a summary bar of counts per state, filtered by state, text, group, tag and site (kept in the
 * URL). The board scrolls with the page; only the rows in and near the window are drawn (every row of
 * a density has the same height, so the slice follows from the window's position), with spacers
 * giving the page its full height.
 */
@Component({
  selector: 'app-sensor-grid',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TranslocoPipe,
    ErrorAlertComponent,
    SensorCardComponent,
    SensorFiltersComponent,
    SensorListRowComponent,
    SensorWallComponent,
    SummaryBarComponent,
    ViewSwitchesComponent,
  ],
  templateUrl: './sensor-grid.component.html',
  styles: `
    :host {
      display: block;
    }
    .toolbar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.4rem 0.6rem;
      margin-block-end: 0.4rem;
    }
    .summary {
      order: 2;
    }
    .hint {
      margin: 0 0 0.4rem;
      color: var(--text-muted);
      font-size: 0.85rem;
    }
    .board {
      position: relative;
    }
    .items {
      display: grid;
      margin: 0;
      padding: 0;
      list-style: none;
    }
    .board[data-density='cards'] .items {
      padding: 2px;
    }
    .board[data-density='list'] .items {
      border-block-start: 1px solid var(--border);
    }
    .empty {
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
  protected readonly prefs = inject(StatusPreferences);

  readonly rows = input.required<readonly SensorRow[]>();
  /** A sensor to bring into view and mark for a moment (the one just created). */
  readonly highlight = input<number | undefined>(undefined);
  /** The sensor marked now. */
  protected readonly marked = signal<number | undefined>(undefined);
  private highlighted: number | undefined;

  protected readonly canOperate = computed(() => hasRole(this.session.role(), 'operator'));
  protected readonly isAdmin = computed(() => hasRole(this.session.role(), 'admin'));
  protected readonly density = this.prefs.density;
  /** Rearranging is offered in the saved order only (in problems-first order places would jump). */
  protected readonly canReorder = computed(
    () => this.isAdmin() && this.prefs.order() === 'saved' && this.density() !== 'wall',
  );

  protected readonly rearrangeHint = computed(() => this.isAdmin() && this.prefs.order() !== 'saved');

  private readonly board = viewChild<ElementRef<HTMLElement>>('board');
  private readonly window = new WindowScroll(() => this.board());
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
  protected readonly listFilters = computed<ListFilter[]>(() => {
    const sensors = this.standing((rows) => rows.map((row) => row.sensor()));
    return [
      {
        key: 'group',
        label: t('status.grid.group'),
        all: t('status.grid.allGroups'),
        options: distinct(sensors.map((s) => s.group)),
      },
      {
        key: 'tag',
        label: t('status.grid.tag'),
        all: t('status.grid.allTags'),
        options: distinct(sensors.flatMap((s) => s.tags)),
      },
      {
        key: 'site',
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
      if (!group && !tag && !site && !needle) return this.rows();
      return this.standing((rows) =>
        rows.filter((row) => {
          const s = row.sensor();
          if (group && s.group !== group) return false;
          if (tag && !s.tags.includes(tag)) return false;
          if (site && s.site !== site) return false;
          if (!needle) return true;
          return (
            s.name.toLowerCase().includes(needle) ||
            s.target.toLowerCase().includes(needle) ||
            s.group.toLowerCase().includes(needle) ||
            s.tags.some((tag) => tag.toLowerCase().includes(needle))
          );
        }),
      );
    },
    { equal: sameRows },
  );

  protected readonly counts = computed<StatusCounts>(() => {
    const counts = { all: 0, up: 0, warn: 0, down: 0, paused: 0, unknown: 0 };
    const matching = this.matching();
    this.store.standingRevision();
    untracked(() => {
      for (const row of matching) {
        counts.all++;
        counts[row.sensor().status]++;
      }
    });
    return counts;
  });

  /** The wall always shows problems first: it is there to spot them. */
  private readonly order = computed(() => (this.density() === 'wall' ? 'problems' : this.prefs.order()));

  protected readonly shown = computed(
    () => {
      const status = this.filters().status;
      const matching = this.matching();
      const order = this.order();
      this.store.standingRevision();
      return untracked(() => {
        const filtered = status ? matching.filter((row) => row.sensor().status === status) : matching;
        return ordered(filtered, order, (row) => row.sensor().status);
      });
    },
    { equal: sameRows },
  );

  protected readonly layout = computed(() => boardLayout(this.density(), this.window.width(), CARD_HEIGHT));
  private readonly rowCount = computed(() => Math.ceil(this.shown().length / this.layout().columns));
  protected readonly totalHeight = computed(() => {
    const { pitch, gap } = this.layout();
    return Math.max(0, this.rowCount() * pitch - gap) + (this.density() === 'cards' ? 4 : 0);
  });

  protected readonly windowed = computed(() => {
    const { columns, pitch } = this.layout();
    const { first, last } = visibleRows(
      this.window.offset(),
      this.window.windowHeight(),
      pitch,
      this.rowCount(),
      OVERSCAN,
    );
    const rows = this.shown().slice(first * columns, last * columns);
    return {
      rows,
      before: first * pitch,
      firstIndex: first * columns,
      columns,
      gridColumns: `repeat(${columns}, minmax(0, 1fr))`,
      rowHeight: pitch - this.layout().gap,
    };
  });

  /**
   * `pick` over the rows, worked out again when the list or a sensor's standing changes (see
   * {@link StatusSensorsStore.standingRevision}) but not on every live result.
   */
  private standing<T>(pick: (rows: readonly SensorRow[]) => T): T {
    const rows = this.rows();
    this.store.standingRevision();
    return untracked(() => pick(rows));
  }

  constructor() {
    const destroyRef = inject(DestroyRef);
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
    // A sensor that moves (its status changed) is moved in the DOM, which takes the focus from it.
    effect(() => {
      this.windowed();
      const board = untracked(() => this.board())?.nativeElement;
      const focused = document.activeElement;
      if (!board || !(focused instanceof HTMLElement) || !board.contains(focused)) return;
      afterNextRender(
        () => {
          if (focused.isConnected && document.activeElement !== focused)
            focused.focus({ preventScroll: true });
        },
        { injector: this.injector },
      );
    });
  }

  /** Index `index` of the shown sensors: its row's top, in px below the board's top. */
  private rowTop(index: number): number {
    return Math.floor(index / this.layout().columns) * this.layout().pitch;
  }

  /** Scrolls the window so that sensor `id` is in its middle, and draws it. */
  private reveal(id: number): void {
    const index = this.shown().findIndex((r) => r.id === id);
    if (index < 0) return;
    this.window.scrollTo(this.rowTop(index) - window.innerHeight / 2);
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
    if (this.window.offset() > 0) this.window.scrollTo(0);
  }

  protected chooseStatus(status: SensorStatus | ''): void {
    this.setFilter('status', status);
  }

  /** Moves a sensor one place among those shown (menu items). */
  protected move(row: SensorRow, delta: -1 | 1): void {
    const shown = this.shown();
    const neighbour = shown[shown.indexOf(row) + delta];
    if (!neighbour) return;
    void this.place(row.id, neighbour.id, delta > 0 ? 'after' : 'before', true);
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
  private async place(
    id: number,
    anchor: number,
    where: 'before' | 'after',
    keepFocus = false,
  ): Promise<void> {
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
    if (keepFocus) this.keepFocus(id);
  }

  /** After a move from the menu: scrolls the sensor into view and puts the focus back on its menu button. */
  private keepFocus(id: number): void {
    const index = this.shown().findIndex((r) => r.id === id);
    if (index < 0) return;
    const top = this.rowTop(index);
    const offset = this.window.offset();
    if (top < offset || top + this.layout().pitch > offset + window.innerHeight) {
      this.window.scrollTo(top - this.layout().pitch);
    }
    afterNextRender(
      () =>
        this.board()
          ?.nativeElement.querySelector<HTMLElement>(
            `[data-testid="sensor-row-${id}"] [data-testid="sensor-menu"]`,
          )
          ?.focus(),
      { injector: this.injector },
    );
  }
}
