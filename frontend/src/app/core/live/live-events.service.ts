import { DestroyRef, Injectable, computed, effect, inject, signal, untracked } from '@angular/core';
import {
  LIVE_EVENT_KINDS,
  type LiveEvent,
  type LiveEventKind,
  type LiveEventPayloads,
} from '@monitor/contracts';
import { Observable, Subject, filter, map } from 'rxjs';

import { SessionStore } from '../session/session.store';
import { EVENT_SOURCE, LIVE_RECONNECT_DELAYS_MS, type LiveEventSource } from './event-source';

/** `off`: not wanted (signed out, `ui.live` off, or no page listening); `retrying`: waiting to reconnect. */
export type LiveConnectionState = 'off' | 'connecting' | 'open' | 'retrying';

export const LIVE_EVENTS_URL = '/api/events';

/**
 * The server's live event stream (`GET /api/events`) as typed observables and signals.
 *
 * The connection is open only while some page has asked for it ({@link retain}), someone is signed
 * in, and their `ui.live` setting is not `off`. A dropped connection is reopened after a growing
 * delay (1 s, 2 s, 5 s, 10 s, then every 30 s, each ±20 %); {@link connected$} fires after every
 * (re)connection, when a page should refetch what it shows, since events sent while it was away are
 * lost. A `settings` event re-reads the session, so a change of `ui.live` made elsewhere applies.
 */
@Injectable({ providedIn: 'root' })
export class LiveEvents {
  private readonly session = inject(SessionStore);
  private readonly createSource = inject(EVENT_SOURCE);
  private readonly delays = inject(LIVE_RECONNECT_DELAYS_MS);

  private readonly users = signal(0);
  private readonly connection = signal<LiveConnectionState>('off');
  private readonly stream = new Subject<LiveEvent>();
  private readonly connects = new Subject<void>();
  private source: LiveEventSource | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;

  /** Whether the signed-in account wants live updates (`ui.live` is not `off`). */
  readonly enabled = computed(() => this.session.authenticated() && this.session.info()?.ui.live !== 'off');
  readonly state = this.connection.asReadonly();
  /** Every event, in the order the server sent them. */
  readonly events$: Observable<LiveEvent> = this.stream.asObservable();
  /** Fires each time the stream has (re)connected. */
  readonly connected$: Observable<void> = this.connects.asObservable();

  constructor() {
    effect(() => {
      const wanted = this.enabled() && this.users() > 0;
      untracked(() => (wanted ? this.start() : this.stop()));
    });
  }

  /** The payloads of one event kind. */
  on<K extends LiveEventKind>(kind: K): Observable<LiveEventPayloads[K]> {
    return this.events$.pipe(
      filter((event) => event.kind === kind),
      map((event) => event.data as LiveEventPayloads[K]),
    );
  }

  /** Keeps the stream open while the calling component (its DestroyRef) lives. */
  retain(destroyRef: DestroyRef = inject(DestroyRef)): void {
    this.users.update((n) => n + 1);
    destroyRef.onDestroy(() => this.users.update((n) => n - 1));
  }

  private start(): void {
    if (this.source || this.retryTimer !== undefined) return;
    this.open();
  }

  private stop(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.source?.close();
    this.source = undefined;
    this.failures = 0;
    this.connection.set('off');
  }

  private open(): void {
    this.retryTimer = undefined;
    this.connection.set('connecting');
    const source = this.createSource(LIVE_EVENTS_URL);
    this.source = source;
    source.onopen = () => {
      if (source !== this.source) return;
      this.failures = 0;
      this.connection.set('open');
      this.connects.next();
    };
    // The browser would retry on its own, at its own pace and never after an HTTP error: retry here.
    source.onerror = () => {
      if (source !== this.source) return;
      source.close();
      this.source = undefined;
      this.connection.set('retrying');
      const base = this.delays[Math.min(this.failures, this.delays.length - 1)] ?? 1_000;
      this.failures++;
      this.retryTimer = setTimeout(() => this.open(), base * (0.8 + Math.random() * 0.4));
    };
    for (const kind of LIVE_EVENT_KINDS) {
      source.addEventListener(kind, (message) => {
        if (source !== this.source) return;
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        if (kind === 'settings') void this.session.reload().catch(() => undefined);
        this.stream.next({ kind, data } as LiveEvent);
      });
    }
  }
}
