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
import { TranslocoPipe } from '@jsverse/transloco';
import type { SensorStatus } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { CARD_HEIGHT, SensorCardComponent } from './sensor-card.component';
import { SensorFilterState } from './sensor-filter-state';
import { SensorFiltersComponent, type FilterKey } from './sensor-filters.component';
import { SensorListRowComponent } from './sensor-list-row.component';
import { SensorWallComponent } from './sensor-wall.component';
import { StatusPreferences } from './status-preferences';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';
import { boardLayout, visibleRows } from './status-view';
import { SummaryBarComponent } from './summary-bar.component';
import { ViewSwitchesComponent } from './view-switches.component';
import { WindowScroll } from './window-scroll';

/** Rows drawn above and below the visible ones. */
const OVERSCAN = 3;
/** How long a just-created sensor stays marked (ms). */
const HIGHLIGHT_MS = 6_000;

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

  /** The wall always shows problems first: it is there to spot them. */
  private readonly order = computed(() => (this.density() === 'wall' ? 'problems' : this.prefs.order()));
  private readonly filterState = new SensorFilterState(() => this.rows(), this.order);
  protected readonly filters = this.filterState.filters;
  protected readonly listFilters = this.filterState.listFilters;
  protected readonly counts = this.filterState.counts;
  protected readonly shown = this.filterState.shown;

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
    this.filterState.set(key, value);
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
