import { InjectionToken } from '@angular/core';

/** The part of the browser's EventSource the dashboard uses, so tests can stand in for it. */
export interface LiveEventSource {
  onopen: ((event: Event) => void) | null;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

/** Opens a Server-Sent Events connection to a same-origin URL (the session cookie goes with it). */
export type EventSourceFactory = (url: string) => LiveEventSource;

/** The browser's EventSource by default; replace it in tests. */
export const EVENT_SOURCE = new InjectionToken<EventSourceFactory>('EVENT_SOURCE', {
  providedIn: 'root',
  factory: () => (url: string) => new EventSource(url),
});

/** Waits before reconnecting; replace it in tests to reconnect at once. */
export const LIVE_RECONNECT_DELAYS_MS = new InjectionToken<readonly number[]>('LIVE_RECONNECT_DELAYS_MS', {
  providedIn: 'root',
  factory: () => [1_000, 2_000, 5_000, 10_000, 30_000],
});
