import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import type {
  MapSettings,
  MapSettingsInput,
  SiteDeleted,
  SiteDetail,
  SiteInput,
  SitesResponse,
} from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { SitesApi } from './sites.api';

/** A site that is drawn on the map: one with both coordinates. */
export interface PlacedSite extends SiteDetail {
  readonly lat: number;
  readonly lon: number;
}

export function isPlaced(site: SiteDetail): site is PlacedSite {
  return typeof site.lat === 'number' && typeof site.lon === 'number';
}

/**
 * The data of `/sites`: the sites, their kinds and the installation's map settings, from
 * `GET /api/sites`, and the calls that change them. Provided by the page.
 *
 * The changing calls reject with an {@link ApiCallError} whose message is the server's, for the
 * form that made them to show verbatim; after a success the list is read again.
 */
@Injectable()
export class SitesStore {
  private readonly api = inject(SitesApi);

  private generation = 0;
  private destroyed = false;

  private readonly state = signal<SitesResponse | undefined>(undefined);
  private readonly failure = signal<ApiCallError | undefined>(undefined);
  private readonly busy = signal(false);

  /** The last answer; kept while reloading. */
  readonly data = this.state.asReadonly();
  readonly error = this.failure.asReadonly();
  readonly loading = this.busy.asReadonly();

  readonly sites = computed(() => this.state()?.sites ?? []);
  readonly kinds = computed(() => this.state()?.kinds ?? ['local', 'external']);
  readonly map = computed(() => this.state()?.map);
  readonly placed = computed(() => this.sites().filter(isPlaced));

  constructor() {
    inject(DestroyRef).onDestroy(() => (this.destroyed = true));
  }

  /** Reads the sites again; an answer to an older read that arrives late is dropped. */
  async load(): Promise<void> {
    const generation = ++this.generation;
    const current = () => !this.destroyed && generation === this.generation;
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      const answer = await this.api.list();
      if (current()) this.state.set(answer);
    } catch (failure: unknown) {
      if (current()) this.failure.set(ApiCallError.from(failure));
    } finally {
      if (current()) this.busy.set(false);
    }
  }

  create(input: SiteInput): Promise<SiteDetail> {
    return this.change(() => this.api.create(input));
  }

  /** Renames, re-kinds or moves `name`; absent fields keep their value. */
  update(name: string, input: SiteInput): Promise<SiteDetail> {
    return this.change(() => this.api.update(name, input));
  }

  /** Deletes `name`; with `unassign`, its sensors are left without a site (else a 409 while it has any). */
  remove(name: string, unassign: boolean): Promise<SiteDeleted> {
    return this.change(() => this.api.remove(name, unassign));
  }

  /** Saves the map settings (absent fields keep their value) and shows them at once. */
  async saveMap(input: MapSettingsInput): Promise<MapSettings> {
    try {
      const saved = await this.api.saveMap(input);
      const data = this.state();
      if (data && !this.destroyed) this.state.set({ ...data, map: saved });
      return saved;
    } catch (failure: unknown) {
      throw ApiCallError.from(failure);
    }
  }

  private async change<T>(call: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await call();
    } catch (failure: unknown) {
      throw ApiCallError.from(failure);
    }
    await this.load();
    return result;
  }
}
