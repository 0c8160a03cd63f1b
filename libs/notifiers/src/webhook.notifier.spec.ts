import { createHmac } from 'node:crypto';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';
import { WebhookNotifier } from './webhook.notifier';

describe('WebhookNotifier', () => {
  const notifier = new WebhookNotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('posts the documented body with event and a signature over the exact bytes', async () => {
    fake = await fakeService(() => ({ status: 200 }));
    await notifier.send(
      { url: `${fake.base}/hooks/monitor?x=1`, hmac_secret: 'shh' },
      sampleNotification({ title: 'DOWN — ünïcode' }),
      openSignal(),
    );
    const [request] = fake.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/monitor?x=1');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-monitor-event']).toBe('down');
    const expected = `sha256=${createHmac('sha256', 'shh').update(request.body).digest('hex')}`;
    expect(request.headers['x-monitor-signature']).toBe(expected);
    const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'event',
      'title',
      'message',
      'url',
      'timestamp',
      'sensor',
      'result',
      'incident',
    ]);
    expect(body).toEqual({
      event: 'down',
      title: 'DOWN — ünïcode',
      message: 'HTTP 503 from https://shop.example.com',
      url: 'http://monitor.local/sensors/s1',
      timestamp: '2025-01-02T03:04:05.000Z',
      sensor: {
        id: 7,
        name: 'Web shop',
        type: 'http',
        target: 'https://shop.example.com',
        group: 'prod',
        tags: ['web', 'eu'],
      },
      result: {
        ts: '2025-01-02T03:04:04.000Z',
        success: false,
        status_code: 503,
        message: 'HTTP 503',
        latency_ms: 120,
      },
      incident: { id: 12, started_at: '2025-01-02T03:04:04.000Z', cause: 'HTTP 503' },
    });
  });

  it('uses the configured verb, carries resolved_at on up, and sends no signature without a secret', async () => {
    fake = await fakeService(() => ({ status: 204 }));
    const incident = {
      id: 12,
      started_at: '2025-01-02T03:04:04.000Z',
      cause: 'x',
      resolved_at: '2025-01-02T04:00:00.000Z',
    };
    await notifier.send(
      { url: `${fake.base}/a`, method: 'PUT' },
      sampleNotification({ kind: 'up', incident }),
      openSignal(),
    );
    await notifier.send(
      { url: `${fake.base}/b`, method: 'patch' },
      sampleNotification({ kind: 'reminder' }),
      openSignal(),
    );
    const [put, patch] = fake.received;
    expect(put.method).toBe('PUT');
    expect(put.headers['x-monitor-event']).toBe('up');
    expect(put.headers['x-monitor-signature']).toBeUndefined();
    expect((JSON.parse(put.body.toString()) as { incident: unknown }).incident).toEqual(incident);
    expect(patch.method).toBe('PATCH');
    expect(patch.headers['x-monitor-event']).toBe('reminder');
  });

  it('sends a test event without incident', async () => {
    fake = await fakeService(() => ({ status: 200 }));
    await notifier.send(
      { url: fake.base },
      sampleNotification({ kind: 'test', sensor: null, result: null }),
      openSignal(),
    );
    const body = JSON.parse(fake.received[0].body.toString()) as Record<string, unknown>;
    expect(fake.received[0].headers['x-monitor-event']).toBe('test');
    expect(body).toMatchObject({ event: 'test', sensor: null, result: null, incident: null });
  });

  it('classifies answers: 5xx and 429 retryable, other 4xx not', async () => {
    const statuses = [500, 429, 400, 404, 302];
    fake = await fakeService((index) => ({
      status: statuses[index],
      body: 'nope',
      headers: { location: '/x' },
    }));
    const outcomes = [];
    for (const _ of statuses) {
      const error = await rejection(notifier.send({ url: fake.base }, sampleNotification(), openSignal()));
      outcomes.push([error['status'], error['retryable']]);
    }
    expect(outcomes).toEqual([
      [500, true],
      [429, true],
      [400, false],
      [404, false],
      [302, false],
    ]);
    expect(fake.received).toHaveLength(5); // the redirect was not followed
  });

  it('gives up on a receiver that never answers when the signal aborts', async () => {
    fake = await fakeService(() => 'hang');
    const started = Date.now();
    const error = await rejection(
      notifier.send({ url: fake.base }, sampleNotification(), AbortSignal.timeout(200)),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error['status']).toBeNull();
    expect(error['retryable']).toBe(true);
    expect(error.message).toBe("the webhook receiver did not answer before the attempt's time limit");
  });

  it('reports an unreachable receiver as retryable', async () => {
    fake = await fakeService(() => ({ status: 200 }));
    const url = fake.base;
    await fake.close();
    fake = undefined;
    const error = await rejection(notifier.send({ url }, sampleNotification(), openSignal()));
    expect(error['retryable']).toBe(true);
    expect(error.message).toMatch(/^could not reach the webhook receiver: /);
  });

  it('validates', () => {
    expect(
      notifier.validate({ url: 'https://example.com/hook', method: 'PATCH', hmac_secret: 's' }),
    ).toBeNull();
    expect(notifier.validate({})).toBe('config.url is required');
    expect(notifier.validate({ url: 'example.com' })).toBe('config.url must be an http or https address');
    expect(notifier.validate({ url: 'https://x', method: 'GET' })).toBe(
      'config.method must be one of POST, PUT, PATCH',
    );
    expect(notifier.validate({ url: 'https://x', hmac_secret: true })).toBe(
      'config.hmac_secret must be a string',
    );
  });
});
