import { DestroyRef, Injectable, effect, inject, signal, untracked } from '@angular/core';
import type { HealthStatus } from '@monitor/contracts';

import { ApiCallError } from '../api/api-call-error';
import { ApiClient } from '../api/api-client.service';
import { ApiEvents } from '../api/api-events';
import { CLOCK } from '../browser/clock';
import { LiveEvents } from '../live/live-events.service';

export const HEALTH_PATH = '/healthz';
/** How often the header asks the server whether it is well, besides the checks events trigger. */
export const HEALTH_INTERVAL_MS = 30_000;

/**
 * `unknown`: not checked yet; `ok`: the server answered with status ok; `unanswered`: no answer (network
 * failure, time-out); `failing`: the server answered, but not with an ok status.
 */
export type HealthState = 'unknown' | 'ok' | 'unanswered' | 'failing';

export interface HealthCheck {
  readonly state: HealthState;
  /** The last answer, when the last check got one with status ok. */
  readonly health?: HealthStatus;
  /** Why the last check failed, when it did. */
  readonly error?: ApiCallError;
  readonly checkedAt?: Date;
}

/**
 * The monitor service's own health, from `GET /healthz`: checked every {@link HEALTH_INTERVAL_MS}
 * while someone shows it ({@link retain}), and at once when the live stream stops being open or an API
 * call gets no answer, the first signs of a server that went away.
 */
@Injectable({ providedIn: 'root' })
export class ServerHealth {
  private readonly api = inject(ApiClient);
  private readonly now = inject(CLOCK);
  private readonly live = inject(LiveEvents);

  private readonly current = signal<HealthCheck>({ state: 'unknown' });
  private readonly busy = signal(false);
  private readonly users = signal(0);
  private timer: ReturnType<typeof setInterval> | undefined;
  private generation = 0;

  readonly check = this.current.asReadonly();
  /** True while a check is in flight. */
  readonly checking = this.busy.asReadonly();

  constructor() {
    effect(() => {
      const wanted = this.users() > 0;
      untracked(() => (wanted ? this.start() : this.stop()));
    });
    let previous = this.live.state();
    effect(() => {
      const state = this.live.state();
      const left = previous === 'open' && state !== 'open';
      previous = state;
      if (left && untracked(this.users) > 0) untracked(() => this.refresh());
    });
    inject(ApiEvents).onUnanswered((call) => {
      if (call.path !== HEALTH_PATH && this.users() > 0) this.refresh();
    });
  }

  /** Keeps the checks going while the calling component (its DestroyRef) lives. */
  retain(destroyRef: DestroyRef = inject(DestroyRef)): void {
    this.users.update((n) => n + 1);
    destroyRef.onDestroy(() => this.users.update((n) => n - 1));
  }

  /** Checks now; an answer to an earlier check that arrives later is ignored. */
  refresh(): void {
    const generation = ++this.generation;
    this.busy.set(true);
    this.api.get<HealthStatus>(HEALTH_PATH).then(
      (health) => this.settle(generation, judge(health, this.now())),
      (failure: unknown) => {
        const error = ApiCallError.from(failure);
        this.settle(generation, {
          state: error.status === 0 ? 'unanswered' : 'failing',
          error,
          checkedAt: this.now(),
        });
      },
    );
  }

  private settle(generation: number, check: HealthCheck): void {
    if (generation !== this.generation) return;
    this.current.set(check);
    this.busy.set(false);
  }

  private start(): void {
    if (this.timer !== undefined) return;
    this.refresh();
    this.timer = setInterval(() => this.refresh(), HEALTH_INTERVAL_MS);
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** An answer of `GET /healthz` as a check: only status `ok` is healthy. */
export function judge(health: HealthStatus | null, checkedAt: Date): HealthCheck {
  if (health?.status === 'ok') return { state: 'ok', health, checkedAt };
  return { state: 'failing', checkedAt };
}
