import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  computed,
  input,
  output,
  signal,
  viewChild,
} from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

export type FilterKey = 'q' | 'status' | 'group' | 'tag' | 'site';
export type Filters = Readonly<Record<FilterKey, string>>;
export interface ListFilter {
  readonly key: 'group' | 'tag' | 'site';
  readonly label: string;
  readonly all: string;
  readonly options: readonly string[];
}

/**
 * Text, group, tag and site filters in one line; on phones they fold into a Filters button (saying
 * how many are set) that opens them as a panel below it. Escape closes the panel.
 */
@Component({
  selector: 'app-sensor-filters',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <button
      #opener
      type="button"
      class="button button-small opener"
      data-testid="filters-open"
      aria-controls="sensor-filters"
      [attr.aria-expanded]="open()"
      (click)="toggle()"
    >
      {{ 'status.filters.open' | transloco: { count: activeCount() } }}
    </button>
    <form
      id="sensor-filters"
      class="filters"
      role="search"
      [class.open]="open()"
      [attr.aria-label]="'status.grid.filtersLabel' | transloco"
      (submit)="$event.preventDefault()"
      (keydown.escape)="close()"
    >
      <div class="field search">
        <label class="visually-hidden" for="grid-q">{{ 'status.grid.search' | transloco }}</label>
        <input
          id="grid-q"
          class="input"
          type="search"
          [placeholder]="'status.grid.searchPlaceholder' | transloco"
          data-testid="grid-filter-q"
          [value]="filters().q"
          (input)="changed.emit({ key: 'q', value: $any($event.target).value })"
        />
      </div>
      @for (filter of listFilters(); track filter.key) {
        <div class="field">
          <label class="visually-hidden" [for]="'grid-' + filter.key">{{ filter.label }}</label>
          <select
            class="select"
            [id]="'grid-' + filter.key"
            [attr.data-testid]="'grid-filter-' + filter.key"
            (change)="changed.emit({ key: filter.key, value: $any($event.target).value })"
          >
            <option value="" [selected]="filters()[filter.key] === ''">{{ filter.all }}</option>
            @for (option of filter.options; track option) {
              <option [value]="option" [selected]="filters()[filter.key] === option">{{ option }}</option>
            }
          </select>
        </div>
      }
      <button type="button" class="button button-small done" (click)="close()">
        {{ 'status.filters.done' | transloco }}
      </button>
    </form>
  `,
  styles: `
    :host {
      display: block;
      flex: 1 1 26rem;
      min-inline-size: 0;
    }
    .filters {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem;
    }
    .field {
      flex: 1 1 6rem;
      min-inline-size: 0;
    }
    .field.search {
      flex: 2 1 9rem;
    }
    .input,
    .select {
      min-block-size: 2.25rem;
      max-inline-size: none;
      padding-block: 0.25rem;
    }
    .opener,
    .done {
      display: none;
    }
    @media (max-width: 37.5rem) {
      .opener {
        display: inline-flex;
      }
      .filters {
        display: none;
        flex-direction: column;
        margin-block-start: 0.5rem;
        padding: 0.75rem;
        border: 1px solid var(--border-strong);
        border-radius: var(--radius);
        background: var(--surface);
        box-shadow: var(--shadow);
      }
      .filters.open {
        display: flex;
      }
      .field,
      .field.search {
        flex: none;
      }
      .done {
        display: inline-flex;
        align-self: end;
      }
    }
  `,
})
export class SensorFiltersComponent {
  readonly filters = input.required<Filters>();
  readonly listFilters = input.required<readonly ListFilter[]>();
  readonly changed = output<{ key: FilterKey; value: string }>();

  protected readonly open = signal(false);
  private readonly opener = viewChild.required<ElementRef<HTMLButtonElement>>('opener');

  /** The filters set here (the status is set in the summary bar). */
  protected readonly activeCount = computed(() => {
    const { q, group, tag, site } = this.filters();
    return [q, group, tag, site].filter((value) => value.trim() !== '').length;
  });

  protected toggle(): void {
    if (this.open()) {
      this.close();
      return;
    }
    this.open.set(true);
    setTimeout(() => document.getElementById('grid-q')?.focus());
  }

  protected close(): void {
    if (!this.open()) return;
    this.open.set(false);
    this.opener().nativeElement.focus();
  }
}
