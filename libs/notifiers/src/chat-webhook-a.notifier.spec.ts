import { ChatWebhookANotifier } from './chat-webhook-a.notifier';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';

describe('ChatWebhookANotifier', () => {
  const notifier = new ChatWebhookANotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('posts {content, username} to the webhook address', async () => {
    fake = await fakeService(() => ({ status: 204 }));
    await notifier.send(
      { webhook_url: `${fake.base}/api/webhooks/123/secret-token`, username: 'Uptime' },
      sampleNotification({ kind: 'up', title: 'UP: Web shop', message: 'back after 5m' }),
      openSignal(),
    );
    const [request] = fake.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/webhooks/123/secret-token');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      content: 'UP: Web shop\nback after 5m\nhttp://monitor.local/sensors/s1',
      username: 'Uptime',
    });
  });

  it('leaves out the username when unset and cuts content to 2000 characters', async () => {
    fake = await fakeService(() => ({ status: 204 }));
    await notifier.send(
      { webhook_url: `${fake.base}/hook` },
      sampleNotification({ message: 'x'.repeat(5000) }),
      openSignal(),
    );
    const body = JSON.parse(fake.received[0].body.toString()) as { content: string };
    expect(Object.keys(body)).toEqual(['content']);
    expect(Array.from(body.content)).toHaveLength(2000);
  });

  it('keeps the secret webhook address out of errors', async () => {
    fake = await fakeService((_, request) => ({
      status: 404,
      body: `{"message":"Unknown Webhook ${request.url}"}`,
    }));
    const error = await rejection(
      notifier.send({ webhook_url: `${fake.base}/api/webhooks/1/tok3n` }, sampleNotification(), openSignal()),
    );
    expect(error['status']).toBe(404);
    expect(error['retryable']).toBe(false);
    expect(error.message).toContain('Unknown Webhook');
    expect(error.message).not.toContain('tok3n');
  });

  it('validates', () => {
    expect(notifier.validate({ webhook_url: 'https://discord.com/api/webhooks/1/x' })).toBeNull();
    expect(notifier.validate({})).toBe('config.webhook_url is required');
    expect(notifier.validate({ webhook_url: 'discord' })).toBe(
      'config.webhook_url must be an http or https address',
    );
    expect(notifier.validate({ webhook_url: 'https://x', username: 5 })).toBe(
      'config.username must be a string',
    );
  });
});
