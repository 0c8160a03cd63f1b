import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { LIVE_EVENT_KINDS, LIVE_KEEP_ALIVE_COMMENT } from '@monitor/contracts';
import type { LiveEventKind, LiveEventPayloads } from '@monitor/contracts';
import { map, merge, Subscription } from 'rxjs';
import { EventBus, type MonitorEvents } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { LIVE_OPTIONS, type LiveOptions } from './live.options';
import { type SseFrame, type SseSink, SseSubscriber, type SubscriberStats } from './sse-subscriber';

/** Compile-time check: the bus publishes exactly the payloads the contract promises the clients. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const PAYLOADS_MATCH: { [K in LiveEventKind]: Same<MonitorEvents[K], LiveEventPayloads[K]> } = {
  result: true,
  status: true,
  incident: true,
  sensor: true,
  channel: true,
  settings: true,
  cluster: true,
};
void PAYLOADS_MATCH;

const KEEP_ALIVE: SseFrame = { bytes: Buffer.from(`${LIVE_KEEP_ALIVE_COMMENT}\n\n`), event: false };

/** `event: <kind>` and one `data:` line of JSON (JSON.stringify never writes a line break). */
export function encodeEvent(kind: LiveEventKind, data: unknown): SseFrame {
  return { bytes: Buffer.from(`event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`), event: true };
}

/** Re-checks the credentials a stream was opened with: false once they no longer hold. */
export type CredentialCheck = () => Promise<boolean>;

/**
 * The fan-out of the live event kinds to the open `GET /api/events` streams. It listens to the event
 * bus only while at least one stream is open, encodes each event once, and hands it to every
 * subscriber, which writes or queues or drops it without ever making the publisher wait. Every
 * keep-alive period it sends the keep-alive comment and re-checks each stream's credentials, so a
 * signed-out, disabled or revoked caller stops receiving events.
 */
@Injectable()
export class LiveHub implements OnModuleDestroy {
  private readonly subscribers = new Map<SseSubscriber, CredentialCheck | undefined>();
  private readonly checking = new Set<SseSubscriber>();
  private busSubscription: Subscription | undefined;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closing = false;

  constructor(
    private readonly bus: EventBus,
    @Inject(LIVE_OPTIONS) readonly options: LiveOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Open streams. */
  get size(): number {
    return this.subscribers.size;
  }

  /** True once the application is shutting down: no new stream is accepted. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** Changes the tunables; a new keep-alive period applies at once. */
  configure(patch: Partial<LiveOptions>): void {
    Object.assign(this.options, patch);
    if (this.keepAliveTimer) {
      this.stopKeepAlive();
      this.startKeepAlive();
    }
  }

  /** Adds a stream; null when the application is shutting down. */
  subscribe(sink: SseSink, recheck?: CredentialCheck): SseSubscriber | null {
    if (this.closing) return null;
    const subscriber = new SseSubscriber(this.nextId++, sink, this.options, (slow) =>
      this.logger.warn(
        {
          subscriber: slow.id,
          queued_frames: slow.stats().queuedFrames,
          queued_bytes: slow.stats().queuedBytes,
        },
        'live subscriber is not keeping up: dropping events',
      ),
    );
    this.subscribers.set(subscriber, recheck);
    if (this.subscribers.size === 1) {
      this.busSubscription = merge(
        ...LIVE_EVENT_KINDS.map((kind) => this.bus.on(kind).pipe(map((data) => encodeEvent(kind, data)))),
      ).subscribe((frame) => this.broadcast(frame));
      this.startKeepAlive();
    }
    return subscriber;
  }

  /** Removes a stream (its client went away, or the server ended it). */
  unsubscribe(subscriber: SseSubscriber): void {
    if (!this.subscribers.delete(subscriber)) return;
    subscriber.detach();
    this.checking.delete(subscriber);
    if (this.subscribers.size === 0) this.release();
  }

  /** What every open stream has done so far. */
  stats(): SubscriberStats[] {
    return [...this.subscribers.keys()].map((subscriber) => subscriber.stats());
  }

  /** Ends every stream before the HTTP server closes (it would otherwise wait for them). */
  onModuleDestroy(): void {
    this.closing = true;
    for (const subscriber of [...this.subscribers.keys()]) {
      subscriber.close();
      this.unsubscribe(subscriber);
    }
    this.release();
  }

  private broadcast(frame: SseFrame): void {
    for (const subscriber of this.subscribers.keys()) subscriber.send(frame);
  }

  private release(): void {
    this.busSubscription?.unsubscribe();
    this.busSubscription = undefined;
    this.stopKeepAlive();
  }

  private startKeepAlive(): void {
    this.keepAliveTimer = setInterval(() => this.keepAlive(), this.options.keepAliveMs);
    this.keepAliveTimer.unref();
  }

  private stopKeepAlive(): void {
    clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
  }

  private keepAlive(): void {
    this.broadcast(KEEP_ALIVE);
    for (const [subscriber, recheck] of this.subscribers) {
      if (!recheck || this.checking.has(subscriber)) continue;
      this.checking.add(subscriber);
      recheck().then(
        (valid) => {
          this.checking.delete(subscriber);
          if (valid || !this.subscribers.has(subscriber)) return;
          this.logger.info(
            { subscriber: subscriber.id },
            'live stream ended: its credentials are no longer valid',
          );
          subscriber.close();
          this.unsubscribe(subscriber);
        },
        // The database did not answer: keep the stream, the next period checks again.
        () => this.checking.delete(subscriber),
      );
    }
  }
}
