import { DestroyRef, Signal, inject, signal } from '@angular/core';

import { ApiCallError } from './api-call-error';

/** Server data a page shows, with its loading and error state as signals. */
export interface Loadable<T> {
  /** The last value loaded; kept while reloading, cleared when a load fails. */
  readonly value: Signal<T | undefined>;
  /** Why the last load failed, if it did; cleared when a new load starts. */
  readonly error: Signal<ApiCallError | undefined>;
  /** True while a load is in flight. */
  readonly loading: Signal<boolean>;
  /** Loads again; an answer to an earlier load that arrives later is ignored. */
  reload(): void;
}

/**
 * Starts `load()` at once and exposes its outcome as signals.
 * Call it in an injection context (a field initialiser of a component); answers arriving after the
 * component is destroyed are dropped.
 */
export function loadable<T>(load: () => Promise<T>): Loadable<T> {
  const value = signal<T | undefined>(undefined);
  const error = signal<ApiCallError | undefined>(undefined);
  const loading = signal(false);
  let generation = 0;
  let destroyed = false;
  inject(DestroyRef).onDestroy(() => (destroyed = true));

  const reload = (): void => {
    const current = ++generation;
    const isCurrent = () => !destroyed && current === generation;
    loading.set(true);
    error.set(undefined);
    load().then(
      (result) => {
        if (!isCurrent()) return;
        value.set(result);
        error.set(undefined);
        loading.set(false);
      },
      (failure: unknown) => {
        if (!isCurrent()) return;
        value.set(undefined);
        error.set(ApiCallError.from(failure));
        loading.set(false);
      },
    );
  };

  reload();
  return { value: value.asReadonly(), error: error.asReadonly(), loading: loading.asReadonly(), reload };
}
