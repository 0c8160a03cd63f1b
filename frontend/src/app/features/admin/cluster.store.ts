import { DestroyRef, Injectable, inject, signal } from '@angular/core';
import type { ClusterView } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { LiveEvents } from '../../core/live/live-events.service';
import { AdminApi } from './admin.api';

/** Sensor edits arrive in bursts (an import, sample data): the loads are read once it settles. */
export const SENSOR_REFRESH_DEBOUNCE_MS = 1_000;
/** How often "last seen" is worked out again. */
const CLOCK_TICK_MS = 5_000;

/**
 * The instances sharing the database (`GET /api/cluster`, administrators), kept current by the
 * live stream: a `cluster` event (an instance joined, left or died) reads them at once, `sensor`
 * events (the loads change) after a pause, and so does every (re)connection of the stream.
 * Provided by the cluster section.
 */
@Injectable()
export class ClusterStore {
  private readonly api = inject(AdminApi);
  private readonly live = inject(LiveEvents);
  private destroyed = false;
  private generation = 0;
  private sensorTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly viewState = signal<ClusterView | undefined>(undefined);
  private readonly errorState = signal<ApiCallError | undefined>(undefined);
  private readonly removingState = signal<string | undefined>(undefined);
  private readonly removeErrorState = signal<string | undefined>(undefined);
  private readonly removedState = signal<string | undefined>(undefined);
  private readonly nowState = signal(Date.now());

  readonly view = this.viewState.asReadonly();
  readonly error = this.errorState.asReadonly();
  /** The instance whose removal is on its way. */
  readonly removing = this.removingState.asReadonly();
  readonly removeError = this.removeErrorState.asReadonly();
  /** The instance last removed, for the status line. */
  readonly removed = this.removedState.asReadonly();
  /** The browser's time, renewed every few seconds, for "last seen … ago". */
  readonly now = this.nowState.asReadonly();

  constructor() {
    const destroyRef = inject(DestroyRef);
    this.live.retain(destroyRef);
    const subscriptions = [
      this.live.on('cluster').subscribe(() => this.refresh()),
      this.live.on('sensor').subscribe(() => this.refreshSoon()),
      this.live.connected$.subscribe(() => this.refresh()),
    ];
    const tick = setInterval(() => this.nowState.set(Date.now()), CLOCK_TICK_MS);
    destroyRef.onDestroy(() => {
      this.destroyed = true;
      clearInterval(tick);
      clearTimeout(this.sensorTimer);
      for (const subscription of subscriptions) subscription.unsubscribe();
    });
    this.refresh();
  }

  /** Reads the instances now; an answer to an earlier read that arrives later is ignored. */
  refresh(): void {
    clearTimeout(this.sensorTimer);
    this.sensorTimer = undefined;
    const generation = ++this.generation;
    this.api.cluster().then(
      (view) => {
        if (this.destroyed || generation !== this.generation) return;
        this.nowState.set(Date.now());
        this.viewState.set(view);
        this.errorState.set(undefined);
      },
      (failure: unknown) => {
        if (this.destroyed || generation !== this.generation) return;
        this.errorState.set(ApiCallError.from(failure));
      },
    );
  }

  private refreshSoon(): void {
    if (this.sensorTimer !== undefined) return;
    this.sensorTimer = setTimeout(() => this.refresh(), SENSOR_REFRESH_DEBOUNCE_MS);
  }

  /** Removes a stopped or dead instance from the list (and its notice). */
  async remove(name: string): Promise<void> {
    if (this.removingState() !== undefined) return;
    this.removingState.set(name);
    this.removeErrorState.set(undefined);
    this.removedState.set(undefined);
    try {
      await this.api.removeInstance(name);
      if (this.destroyed) return;
      this.removedState.set(name);
      // Gone from the list at once; the read confirms it.
      this.viewState.update((view) =>
        view ? { ...view, instances: view.instances.filter((i) => i.name !== name) } : view,
      );
      this.refresh();
    } catch (failure: unknown) {
      if (!this.destroyed) {
        this.removeErrorState.set(ApiCallError.from(failure).message);
        this.refresh();
      }
    } finally {
      this.removingState.set(undefined);
    }
  }
}
