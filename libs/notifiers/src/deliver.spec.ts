import { BotMessengerNotifier } from './bot-messenger.notifier';
import { deliverWithRetries } from './deliver';
import { DeliveryError, type Notifier } from './notifier';
import { fakeService, sampleNotification, type Answer, type FakeService } from './testing/fake-service';
import { WebhookNotifier } from './webhook.notifier';

describe('deliverWithRetries', () => {
  const webhook = new WebhookNotifier();
  let fake: FakeService | undefined;
  let waits: number[];
  const sleep = (ms: number): Promise<void> => {
    waits.push(ms);
    return Promise.resolve();
  };
  beforeEach(() => {
    waits = [];
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function deliverAgainst(answers: Answer[]) {
    fake = await fakeService((index) => answers[Math.min(index, answers.length - 1)]);
    return deliverWithRetries(webhook, { url: `${fake.base}/hook` }, sampleNotification(), {
      attempts: 3,
      backoffMs: (n) => n * 1000,
      attemptTimeoutMs: 10_000,
      sleep,
    });
  }

  it('retries a 500 and succeeds on the second attempt after 1 s', async () => {
    const outcome = await deliverAgainst([{ status: 500 }, { status: 200 }]);
    expect(outcome).toEqual({ ok: true, attempts: 2 });
    expect(fake?.received).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('retries a 429', async () => {
    const outcome = await deliverAgainst([{ status: 429 }, { status: 200 }]);
    expect(outcome).toEqual({ ok: true, attempts: 2 });
    expect(waits).toEqual([1000]);
  });

  it('does not retry a 400', async () => {
    const outcome = await deliverAgainst([{ status: 400, body: 'bad payload' }]);
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(1);
    expect(fake?.received).toHaveLength(1);
    expect(waits).toEqual([]);
    if (!outcome.ok)
      expect(outcome.error.message).toBe('the webhook receiver answered HTTP 400: bad payload');
  });

  it('gives up after three 500s with linear backoff and returns the last error', async () => {
    const outcome = await deliverAgainst([{ status: 500 }]);
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(3);
    expect(fake?.received).toHaveLength(3);
    expect(waits).toEqual([1000, 2000]);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(DeliveryError);
      expect(outcome.error.status).toBe(500);
    }
  });

  it('bounds each attempt by its time-out and retries a hanging receiver', async () => {
    fake = await fakeService(() => 'hang');
    const outcome = await deliverWithRetries(webhook, { url: fake.base }, sampleNotification(), {
      attempts: 2,
      attemptTimeoutMs: 150,
      sleep,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(2);
    expect(fake.received).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('keeps the bot token out of the returned error', async () => {
    const token = '42:secret-token';
    fake = await fakeService(() => ({
      status: 401,
      body: `{"ok":false,"description":"Unauthorized ${token}"}`,
    }));
    const outcome = await deliverWithRetries(
      new BotMessengerNotifier(),
      { bot_token: token, chat_id: '1', api_url: fake.base },
      sampleNotification(),
      { sleep },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(1);
    if (!outcome.ok) {
      expect(outcome.error.message).toBe('the Bot API answered HTTP 401: Unauthorized <bot-token>');
    }
  });

  it('turns an unexpected throw into a non-retryable error without its text', async () => {
    const broken: Notifier = {
      type: 'broken',
      definition: { label: 'x', fields: [], recipe: [] },
      validate: () => null,
      send: () => Promise.reject(new Error('secret detail')),
    };
    const outcome = await deliverWithRetries(broken, {}, sampleNotification(), { sleep });
    expect(outcome).toEqual({ ok: false, attempts: 1, error: expect.any(DeliveryError) });
    if (!outcome.ok) expect(outcome.error.message).not.toContain('secret detail');
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await deliverWithRetries(webhook, { url: 'http://127.0.0.1:9' }, sampleNotification(), {
      sleep,
      signal: controller.signal,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(0);
  });
});
