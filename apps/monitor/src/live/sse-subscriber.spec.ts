import { EventEmitter } from 'node:events';
import { encodeEvent } from './live-hub.service';
import { type SseFrame, type SseSink, SseSubscriber } from './sse-subscriber';

/** A sink that takes `capacity` more writes before it reports backpressure, like a socket. */
class FakeSink extends EventEmitter implements SseSink {
  readonly written: string[] = [];
  destroyed = false;
  writableEnded = false;

  constructor(public capacity = Infinity) {
    super();
  }

  write(chunk: Buffer): boolean {
    this.written.push(chunk.toString());
    return --this.capacity > 0;
  }

  end(): void {
    this.writableEnded = true;
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** The client read everything: room for `capacity` writes again. */
  drain(capacity = Infinity): void {
    this.capacity = capacity;
    this.emit('drain');
  }
}

const frame = (n: number, size = 10): SseFrame =>
  encodeEvent('result', { n, pad: 'x'.repeat(Math.max(0, size - 40)) });
const keepAlive: SseFrame = { bytes: Buffer.from(': keep-alive\n\n'), event: false };
const numbers = (sink: FakeSink) =>
  sink.written
    .filter((w) => w.startsWith('event:'))
    .map((w) => (JSON.parse(w.split('data: ')[1]) as { n: number }).n);

describe('SseSubscriber', () => {
  it('writes straight through while the connection takes data', () => {
    const sink = new FakeSink();
    const subscriber = new SseSubscriber(1, sink, { maxQueuedFrames: 2, maxQueuedBytes: 1024 });
    for (let n = 0; n < 10; n++) expect(subscriber.send(frame(n))).toBe(true);
    expect(numbers(sink)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(subscriber.stats()).toMatchObject({ sent: 10, dropped: 0, peakQueuedFrames: 0, blocked: false });
  });

  it('queues under backpressure, drops new frames when the queue is full, and resumes in order on drain', () => {
    const sink = new FakeSink(1);
    const drops: number[] = [];
    const subscriber = new SseSubscriber(7, sink, { maxQueuedFrames: 3, maxQueuedBytes: 1024 }, (s) =>
      drops.push(s.id),
    );
    subscriber.send(frame(0)); // accepted, but the sink is now full
    for (let n = 1; n <= 6; n++) subscriber.send(frame(n));
    expect(numbers(sink)).toEqual([0]);
    expect(subscriber.stats()).toMatchObject({ sent: 4, dropped: 3, queuedFrames: 3, blocked: true });
    expect(drops).toEqual([7]); // reported once, at the first drop

    sink.drain(2); // takes one and reports backpressure again on the second
    expect(numbers(sink)).toEqual([0, 1, 2]);
    expect(subscriber.stats()).toMatchObject({ queuedFrames: 1, blocked: true });
    sink.drain();
    subscriber.send(frame(7));
    expect(numbers(sink)).toEqual([0, 1, 2, 3, 7]);
    expect(subscriber.stats()).toMatchObject({ sent: 5, dropped: 3, queuedFrames: 0, peakQueuedFrames: 3 });
  });

  it('bounds the queue by bytes as well as by frames', () => {
    const sink = new FakeSink(1);
    const subscriber = new SseSubscriber(1, sink, { maxQueuedFrames: 100, maxQueuedBytes: 250 });
    subscriber.send(frame(0, 100));
    for (let n = 1; n <= 5; n++) subscriber.send(frame(n, 100));
    const stats = subscriber.stats();
    expect(stats.queuedFrames).toBe(2);
    expect(stats.peakQueuedBytes).toBeLessThanOrEqual(250);
    expect(stats.dropped).toBe(3);
  });

  it('does not queue keep-alive comments behind pending data', () => {
    const sink = new FakeSink(1);
    const subscriber = new SseSubscriber(1, sink, { maxQueuedFrames: 1, maxQueuedBytes: 1024 });
    subscriber.send(keepAlive);
    subscriber.send(keepAlive);
    subscriber.send(frame(1));
    expect(subscriber.stats()).toMatchObject({ sent: 1, dropped: 0, queuedFrames: 1 });
  });

  it('ends an idle connection in order, and cuts one that is not taking data', () => {
    const idle = new FakeSink();
    new SseSubscriber(1, idle, { maxQueuedFrames: 1, maxQueuedBytes: 1024 }).close();
    expect(idle).toMatchObject({ writableEnded: true, destroyed: false });

    const stuck = new FakeSink(1);
    const subscriber = new SseSubscriber(2, stuck, { maxQueuedFrames: 1, maxQueuedBytes: 1024 });
    subscriber.send(frame(0));
    subscriber.close();
    expect(stuck.destroyed).toBe(true);
    expect(subscriber.send(frame(1))).toBe(false);
  });
});
