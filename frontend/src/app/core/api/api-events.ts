import { Injectable } from '@angular/core';

/** An API call the server answered with 401. */
export interface UnauthorizedCall {
  readonly method: string;
  readonly path: string;
}

type Listener = (call: UnauthorizedCall) => void;

/** An API call that got no answer at all (network failure or time-out). */
export interface UnansweredCall {
  readonly method: string;
  readonly path: string;
}

type UnansweredListener = (call: UnansweredCall) => void;

/**
 * What the {@link ApiClient} reports about calls besides their result, for the parts of the app that
 * react to every call (the session store listens for 401s, the header's health indicator for calls
 * that got no answer). Kept apart from the session store so the
 * API client does not depend on it.
 */
@Injectable({ providedIn: 'root' })
export class ApiEvents {
  private readonly unauthorizedListeners = new Set<Listener>();
  private readonly unansweredListeners = new Set<UnansweredListener>();

  /** Calls `listener` for every call answered with 401; returns a function that stops it. */
  onUnauthorized(listener: Listener): () => void {
    this.unauthorizedListeners.add(listener);
    return () => this.unauthorizedListeners.delete(listener);
  }

  notifyUnauthorized(call: UnauthorizedCall): void {
    for (const listener of this.unauthorizedListeners) listener(call);
  }

  /** Calls `listener` for every call that got no answer; returns a function that stops it. */
  onUnanswered(listener: UnansweredListener): () => void {
    this.unansweredListeners.add(listener);
    return () => this.unansweredListeners.delete(listener);
  }

  notifyUnanswered(call: UnansweredCall): void {
    for (const listener of this.unansweredListeners) listener(call);
  }
}
