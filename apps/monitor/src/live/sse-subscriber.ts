import type { LiveOptions } from './live.options';

/** The part of a writable HTTP response a subscriber writes to (a `ServerResponse` in production). */
export interface SseSink {
  /** False when the connection is not taking more for now ('drain' follows). */
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
}

/** One encoded frame: encoded once, written to every subscriber. */
export interface SseFrame {
  readonly bytes: Buffer;
  /** False for comments (keep-alive), which are neither counted nor queued. */
  readonly event: boolean;
}

export type SubscriberLimits = Pick<LiveOptions, 'maxQueuedFrames' | 'maxQueuedBytes'>;

/** What a subscriber has done so far (for the close log line and the tests). */
export interface SubscriberStats {
  id: number;
  /** Events written to the connection or queued for it. */
  sent: number;
  /** Events lost because the queue was full. */
  dropped: number;
  queuedFrames: number;
  queuedBytes: number;
  /** The largest the queue has been. */
  peakQueuedFrames: number;
  peakQueuedBytes: number;
  /** True while the connection reports backpressure. */
  blocked: boolean;
}

/**
 * One client of the event stream. `send` never waits: while the connection takes data, frames go
 * straight to it; once `write()` reports backpressure, frames wait in a bounded queue until
 * 'drain'; when the queue is full, new frames are dropped for this subscriber only.
 */
export class SseSubscriber {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private blocked = false;
  private closed = false;
  private sent = 0;
  private dropped = 0;
  private peakQueuedFrames = 0;
  private peakQueuedBytes = 0;

  constructor(
    readonly id: number,
    private readonly sink: SseSink,
    private readonly limits: SubscriberLimits,
    /** Called once, at the first dropped event. */
    private readonly onFirstDrop: (subscriber: SseSubscriber) => void = () => undefined,
  ) {}

  get isClosed(): boolean {
    return this.closed || this.sink.destroyed || this.sink.writableEnded;
  }

  /** Writes or queues a frame; answers false when it was dropped. Never throws, never waits. */
  send(frame: SseFrame): boolean {
    if (this.isClosed) return false;
    if (!this.blocked) {
      if (frame.event) this.sent++;
      this.write(frame.bytes);
      return true;
    }
    // The connection is busy: a comment has no value once data is pending anyway.
    if (!frame.event) return true;
    const bytes = frame.bytes.length;
    if (
      this.queue.length >= this.limits.maxQueuedFrames ||
      this.queuedBytes + bytes > this.limits.maxQueuedBytes
    ) {
      if (this.dropped++ === 0) this.onFirstDrop(this);
      return false;
    }
    this.queue.push(frame.bytes);
    this.queuedBytes += bytes;
    this.sent++;
    if (this.queue.length > this.peakQueuedFrames) this.peakQueuedFrames = this.queue.length;
    if (this.queuedBytes > this.peakQueuedBytes) this.peakQueuedBytes = this.queuedBytes;
    return true;
  }

  /**
   * Ends the stream from the server's side. A connection that is not taking data would keep an
   * orderly end waiting for ever, so it is cut instead.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    try {
      if (this.blocked) this.sink.destroy();
      else this.sink.end();
    } catch {
      this.sink.destroy();
    }
  }

  /** The client went away: forget what was waiting. */
  detach(): void {
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
  }

  stats(): SubscriberStats {
    return {
      id: this.id,
      sent: this.sent,
      dropped: this.dropped,
      queuedFrames: this.queue.length,
      queuedBytes: this.queuedBytes,
      peakQueuedFrames: this.peakQueuedFrames,
      peakQueuedBytes: this.peakQueuedBytes,
      blocked: this.blocked,
    };
  }

  private write(bytes: Buffer): void {
    let accepted: boolean;
    try {
      accepted = this.sink.write(bytes);
    } catch {
      // A connection that broke between two events: 'close' follows and removes the subscriber.
      return;
    }
    if (!accepted) {
      this.blocked = true;
      this.sink.once('drain', this.onDrain);
    }
  }

  private readonly onDrain = (): void => {
    this.blocked = false;
    while (!this.blocked && this.queue.length > 0 && !this.isClosed) {
      const next = this.queue.shift() as Buffer;
      this.queuedBytes -= next.length;
      this.write(next);
    }
  };
}
