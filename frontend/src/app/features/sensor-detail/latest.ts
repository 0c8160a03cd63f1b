import { signal } from '@angular/core';

import { ApiCallError } from '../../core/api/api-call-error';

/**
 * One piece of server data with its loading and error state as signals, where only the answer to
 * the latest call counts: a slower answer to an earlier call (another sensor, another range) is
 * dropped.
 */
export class Latest<T> {
  private readonly state = signal<T | undefined>(undefined);
  private readonly failure = signal<ApiCallError | undefined>(undefined);
  private readonly busy = signal(false);
  private generation = 0;

  readonly value = this.state.asReadonly();
  readonly error = this.failure.asReadonly();
  readonly loading = this.busy.asReadonly();

  /** Calls `call`; `clear` drops the value shown until the answer arrives (new subject). */
  async run(call: () => Promise<T>, clear = false): Promise<void> {
    const generation = ++this.generation;
    if (clear) this.state.set(undefined);
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      const value = await call();
      if (generation !== this.generation) return;
      this.state.set(value);
    } catch (failure: unknown) {
      if (generation !== this.generation) return;
      this.state.set(undefined);
      this.failure.set(ApiCallError.from(failure));
    } finally {
      if (generation === this.generation) this.busy.set(false);
    }
  }

  /** Replaces the value (after a change the server answered with). */
  set(value: T): void {
    this.state.set(value);
  }

  /** Ignores every answer still on its way (the page is gone). */
  abandon(): void {
    this.generation++;
  }
}
