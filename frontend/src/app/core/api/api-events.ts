import { Injectable } from '@angular/core';

/** An API call the server answered with 401. */
export interface UnauthorizedCall {
  readonly method: string;
  readonly path: string;
}

type Listener = (call: UnauthorizedCall) => void;

/**
 * What the {@link ApiClient} reports about calls besides their result, for the parts of the app that
 * react to every call (the session store listens for 401s). Kept apart from the session store so the
 * API client does not depend on it.
 */
@Injectable({ providedIn: 'root' })
export class ApiEvents {
  private readonly unauthorizedListeners = new Set<Listener>();

  /** Calls `listener` for every call answered with 401; returns a function that stops it. */
  onUnauthorized(listener: Listener): () => void {
    this.unauthorizedListeners.add(listener);
    return () => this.unauthorizedListeners.delete(listener);
  }

  notifyUnauthorized(call: UnauthorizedCall): void {
    for (const listener of this.unauthorizedListeners) listener(call);
  }
}
