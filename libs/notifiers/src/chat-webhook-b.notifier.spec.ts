import { ChatWebhookBNotifier } from './chat-webhook-b.notifier';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';

describe('ChatWebhookBNotifier', () => {
  const notifier = new ChatWebhookBNotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('posts {text, channel} with a # added to the channel', async () => {
    fake = await fakeService(() => ({ status: 200, body: 'ok' }));
    await notifier.send(
      { webhook_url: `${fake.base}/services/T1/B2/xyz`, channel: 'ops' },
      sampleNotification(),
      openSignal(),
    );
    const [request] = fake.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/services/T1/B2/xyz');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      text: 'DOWN: Web shop\nHTTP 503 from https://shop.example.com\nhttp://monitor.local/sensors/s1',
      channel: '#ops',
    });
  });

  it('keeps an existing # and leaves out an unset channel', async () => {
    fake = await fakeService(() => ({ status: 200, body: 'ok' }));
    await notifier.send(
      { webhook_url: `${fake.base}/h`, channel: '#ops' },
      sampleNotification(),
      openSignal(),
    );
    await notifier.send({ webhook_url: `${fake.base}/h`, channel: '' }, sampleNotification(), openSignal());
    expect((JSON.parse(fake.received[0].body.toString()) as { channel: string }).channel).toBe('#ops');
    expect(Object.keys(JSON.parse(fake.received[1].body.toString()) as object)).toEqual(['text']);
  });

  it('reports the answer without the secret address', async () => {
    fake = await fakeService(() => ({ status: 403, body: 'invalid_token' }));
    const error = await rejection(
      notifier.send(
        { webhook_url: `${fake.base}/services/T1/B2/s3cr3t` },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error.message).toBe('the chat webhook answered HTTP 403: invalid_token');
    expect(error['retryable']).toBe(false);
  });

  it('validates', () => {
    expect(
      notifier.validate({ webhook_url: 'https://hooks.slack.com/services/T/B/x', channel: 'ops' }),
    ).toBeNull();
    expect(notifier.validate({ channel: 'ops' })).toBe('config.webhook_url is required');
    expect(notifier.validate({ webhook_url: 'hooks.slack.com' })).toBe(
      'config.webhook_url must be an http or https address',
    );
    expect(notifier.validate({ webhook_url: 'https://x', channel: 'my ops' })).toBe(
      'config.channel must not contain spaces',
    );
  });
});
