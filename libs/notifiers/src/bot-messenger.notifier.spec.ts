import { BotMessengerNotifier } from './bot-messenger.notifier';
import { DeliveryError } from './notifier';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';

const TOKEN = '123456789:AAF-secret_TokenValue';

describe('BotMessengerNotifier', () => {
  const notifier = new BotMessengerNotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('posts sendMessage with the token in the path and the chat, thread and silent flag in the body', async () => {
    fake = await fakeService(() => ({ status: 200, body: '{"ok":true,"result":{"message_id":1}}' }));
    await notifier.send(
      {
        bot_token: TOKEN,
        chat_id: '-1001234567890',
        thread_id: '42',
        silent: true,
        api_url: `${fake.base}/`,
      },
      sampleNotification(),
      openSignal(),
    );
    expect(fake.received).toHaveLength(1);
    const [request] = fake.received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`/bot${TOKEN}/sendMessage`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      chat_id: -1001234567890,
      text: 'DOWN: Web shop\nHTTP 503 from https://shop.example.com\nhttp://monitor.local/sensors/s1',
      message_thread_id: 42,
      disable_notification: true,
    });
  });

  it('leaves out the thread, keeps an @channel name and sounds by default', async () => {
    fake = await fakeService(() => ({ status: 200, body: '{"ok":true}' }));
    await notifier.send(
      { bot_token: TOKEN, chat_id: '@alerts_channel', api_url: fake.base },
      sampleNotification(),
      openSignal(),
    );
    expect(JSON.parse(fake.received[0].body.toString())).toEqual({
      chat_id: '@alerts_channel',
      text: expect.any(String),
      disable_notification: false,
    });
  });

  it('replaces the token by <bot-token> in an error whose answer echoes it', async () => {
    fake = await fakeService((_, request) => ({
      status: 401,
      body: JSON.stringify({
        ok: false,
        error_code: 401,
        description: `Unauthorized: token ${TOKEN} (${encodeURIComponent(TOKEN)}) at ${request.url}`,
      }),
    }));
    const error = await rejection(
      notifier.send(
        { bot_token: TOKEN, chat_id: '1', api_url: fake.base },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error['status']).toBe(401);
    expect(error['retryable']).toBe(false);
    expect(error.message).toContain('<bot-token>');
    expect(error.message).toContain('401');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain('AAF-secret_TokenValue');
  });

  it('scrubs the token even when the answer is longer than the part kept in the message', async () => {
    fake = await fakeService(() => ({ status: 500, body: `${'x'.repeat(190)}${TOKEN}${'y'.repeat(500)}` }));
    const error = await rejection(
      notifier.send(
        { bot_token: TOKEN, chat_id: '1', api_url: fake.base },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error['retryable']).toBe(true);
    expect(error.message).not.toContain('AAF');
  });

  it('refuses a 2xx answer without "ok": true', async () => {
    fake = await fakeService(() => ({ status: 200, body: '<html>proxy</html>' }));
    const error = await rejection(
      notifier.send(
        { bot_token: TOKEN, chat_id: '1', api_url: fake.base },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error['retryable']).toBe(false);
  });

  it('validates', () => {
    const ok = { bot_token: TOKEN, chat_id: '-100123' };
    expect(notifier.validate(ok)).toBeNull();
    expect(
      notifier.validate({
        ...ok,
        chat_id: 123,
        thread_id: 7,
        silent: false,
        api_url: 'http://127.0.0.1:8081',
      }),
    ).toBeNull();
    expect(notifier.validate({ chat_id: '1' })).toBe('config.bot_token is required');
    const badToken = notifier.validate({ ...ok, bot_token: 'not a token' });
    expect(badToken).toMatch(/^config\.bot_token must/);
    expect(badToken).not.toContain('not a token');
    expect(notifier.validate({ bot_token: TOKEN })).toBe('config.chat_id is required');
    expect(notifier.validate({ ...ok, chat_id: 'group' })).toMatch(/^config\.chat_id must/);
    expect(notifier.validate({ ...ok, thread_id: '-5' })).toMatch(/^config\.thread_id must/);
    expect(notifier.validate({ ...ok, silent: 'yes' })).toBe('config.silent must be true or false');
    expect(notifier.validate({ ...ok, api_url: 'ftp://x' })).toBe(
      'config.api_url must be an http or https address',
    );
    expect(notifier.validate({ ...ok, colour: 'red' })).toBe(
      'config.colour is not a field of this channel type',
    );
  });

  it('does not send with an invalid config', async () => {
    const error = await rejection(notifier.send({ bot_token: TOKEN }, sampleNotification(), openSignal()));
    expect(error['retryable']).toBe(false);
    expect(error.message).toBe('config.chat_id is required');
  });

  it('describes itself with a secret token field and a recipe', () => {
    const token = notifier.definition.fields.find((field) => field.name === 'bot_token');
    expect(token).toMatchObject({ required: true, secret: true, kind: 'string' });
    expect(notifier.definition.fields.map((field) => field.name)).toEqual([
      'bot_token',
      'chat_id',
      'thread_id',
      'silent',
      'api_url',
    ]);
    expect(notifier.definition.recipe.length).toBeGreaterThanOrEqual(3);
  });
});
