import { PushTopicNotifier } from './push-topic.notifier';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';

describe('PushTopicNotifier', () => {
  const notifier = new PushTopicNotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('posts the message to the topic with title, priority, click and bearer token headers', async () => {
    fake = await fakeService(() => ({ status: 200, body: '{"id":"x"}' }));
    await notifier.send(
      { server_url: `${fake.base}/`, topic: 'monitor-alerts', token: 'tk_secret', priority: 'urgent' },
      sampleNotification(),
      openSignal(),
    );
    const [request] = fake.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/monitor-alerts');
    expect(request.headers['title']).toBe('DOWN: Web shop');
    expect(request.headers['priority']).toBe('5');
    expect(request.headers['click']).toBe('http://monitor.local/sensors/s1');
    expect(request.headers['authorization']).toBe('Bearer tk_secret');
    expect(request.body.toString()).toBe('HTTP 503 from https://shop.example.com');
  });

  it.each([
    ['min', '1'],
    ['low', '2'],
    ['default', '3'],
    ['HIGH', '4'],
    ['', '3'],
  ])('maps priority %p to %s, without a token header when none is set', async (priority, header) => {
    fake = await fakeService(() => ({ status: 200 }));
    await notifier.send({ server_url: fake.base, topic: 't', priority }, sampleNotification(), openSignal());
    expect(fake.received[0].headers['priority']).toBe(header);
    expect(fake.received[0].headers['authorization']).toBeUndefined();
  });

  it('encodes a title that is not plain ASCII', async () => {
    fake = await fakeService(() => ({ status: 200 }));
    await notifier.send(
      { server_url: fake.base, topic: 't' },
      sampleNotification({ title: 'DOWN — Café' }),
      openSignal(),
    );
    const title = String(fake.received[0].headers['title']);
    const match = /^=\?UTF-8\?B\?(.+)\?=$/.exec(title);
    expect(match).not.toBeNull();
    expect(Buffer.from(match?.[1] ?? '', 'base64').toString('utf8')).toBe('DOWN — Café');
  });

  it('reports a refusal without the token', async () => {
    fake = await fakeService(() => ({ status: 403, body: '{"code":40301,"error":"forbidden tk_secret"}' }));
    const error = await rejection(
      notifier.send(
        { server_url: fake.base, topic: 't', token: 'tk_secret' },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error.message).toBe('the push server answered HTTP 403: forbidden <token>');
    expect(error['retryable']).toBe(false);
  });

  it('validates', () => {
    expect(notifier.validate({ topic: 'alerts_1-x' })).toBeNull();
    expect(notifier.validate({ topic: 'a', server_url: '', priority: '' })).toBeNull();
    expect(notifier.validate({})).toBe('config.topic is required');
    expect(notifier.validate({ topic: 'a/b' })).toBe('config.topic must be 1 to 64 letters, digits, - or _');
    expect(notifier.validate({ topic: 'a', priority: 'loud' })).toBe(
      'config.priority must be one of min, low, default, high, urgent',
    );
    expect(notifier.validate({ topic: 'a', server_url: 'ntfy.sh' })).toBe(
      'config.server_url must be an http or https address',
    );
    expect(notifier.validate({ topic: 'a', token: 42 })).toBe('config.token must be a string');
  });
});
