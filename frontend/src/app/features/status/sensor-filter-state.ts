import { computed, inject, untracked } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute, Router, type Params } from '@angular/router';
import type { SensorOrder } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import type { FilterKey, Filters, ListFilter } from './sensor-filters.component';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';
import { ordered } from './status-view';
import type { StatusCounts } from './summary-bar.component';

const FILTER_KEYS: readonly FilterKey[] = ['q', 'status', 'group', 'tag', 'site'];

const sameRows = (a: readonly SensorRow[], b: readonly SensorRow[]): boolean =>
  a.length === b.length && a.every((row, index) => row === b[index]);

/** The order of localeCompare; one collator, as localeCompare would set one up for each comparison. */
const collator = new Intl.Collator();

const distinct = (values: Iterable<string>): string[] =>
  [...new Set(values)].filter((value) => value !== '').sort(collator.compare);

/**
 * The sensor grid's filters (state, text, group, tag and site, kept in the URL's query) and what
 * follows from them: the choices each list filter offers, the counts per state, and the sensors
 * shown in the order asked for. Works out again when the list or a sensor's standing changes (see
 * {@link StatusSensorsStore.standingRevision}), not on every live result. Create it in an injection
 * context (a component's field).
 */
export class SensorFilterState {
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly store = inject(StatusSensorsStore);

  constructor(
    private readonly rows: () => readonly SensorRow[],
    private readonly order: () => SensorOrder,
  ) {}

  private readonly params = toSignal(this.route.queryParamMap, {
    initialValue: this.route.snapshot.queryParamMap,
  });
  readonly filters = computed<Filters>(() => {
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
  readonly listFilters = computed<ListFilter[]>(() => {
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

  readonly counts = computed<StatusCounts>(() => {
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

  /** The sensors matching every filter, in the order asked for. */
  readonly shown = computed(
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

  /** Sets one filter in the URL (an empty value removes it), replacing the history entry. */
  set(key: FilterKey, value: string): void {
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
  }

  /** `pick` over the rows, worked out again when the list or a sensor's standing changes. */
  private standing<T>(pick: (rows: readonly SensorRow[]) => T): T {
    const rows = this.rows();
    this.store.standingRevision();
    return untracked(() => pick(rows));
  }
}
