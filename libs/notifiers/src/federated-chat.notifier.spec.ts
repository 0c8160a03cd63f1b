import { FederatedChatNotifier, transactionId } from './federated-chat.notifier';
import {
  fakeService,
  openSignal,
  rejection,
  sampleNotification,
  type FakeService,
} from './testing/fake-service';

const TOKEN = 'syt_bW9uaXRvcg_secretsecret_0abc12';

describe('FederatedChatNotifier', () => {
  const notifier = new FederatedChatNotifier();
  let fake: FakeService | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('puts an m.text event into the URL-encoded room with the bearer token', async () => {
    fake = await fakeService(() => ({ status: 200, body: '{"event_id":"$abc"}' }));
    const notification = sampleNotification();
    await notifier.send(
      { homeserver_url: `${fake.base}/`, access_token: TOKEN, room_id: '!AbCdEf:example.org' },
      notification,
      openSignal(),
    );
    const [request] = fake.received;
    expect(request.method).toBe('PUT');
    expect(request.url).toBe(
      `/_matrix/client/v3/rooms/!AbCdEf%3Aexample.org/send/m.room.message/${transactionId(notification)}`,
    );
    expect(request.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      msgtype: 'm.text',
      body: 'DOWN: Web shop\nHTTP 503 from https://shop.example.com\nhttp://monitor.local/sensors/s1',
    });
  });

  it('uses one transaction id per notification, so a retry is de-duplicated', () => {
    const a = sampleNotification();
    expect(transactionId(a)).toBe(transactionId({ ...a }));
    expect(transactionId(a)).not.toBe(transactionId({ ...a, kind: 'reminder' }));
    expect(transactionId(a)).toMatch(/^[A-Za-z0-9-]+$/);
  });

  it('reports the error code and never the token', async () => {
    fake = await fakeService(() => ({
      status: 403,
      body: JSON.stringify({ errcode: 'M_FORBIDDEN', error: `User not in room (token ${TOKEN})` }),
    }));
    const error = await rejection(
      notifier.send(
        { homeserver_url: fake.base, access_token: TOKEN, room_id: '!r:x' },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error['status']).toBe(403);
    expect(error['retryable']).toBe(false);
    expect(error.message).toContain('M_FORBIDDEN: User not in room');
    expect(error.message).not.toContain(TOKEN);
  });

  it('validates', () => {
    const ok = {
      homeserver_url: 'https://matrix.example.org',
      access_token: 't',
      room_id: '!abc:example.org',
    };
    expect(notifier.validate(ok)).toBeNull();
    expect(notifier.validate({ ...ok, room_id: '#alerts:example.org' })).toBe(
      'config.room_id must start with ! and contain :',
    );
    expect(notifier.validate({ ...ok, room_id: '!abc' })).toBe(
      'config.room_id must start with ! and contain :',
    );
    expect(notifier.validate({ ...ok, room_id: '' })).toBe('config.room_id is required');
    expect(notifier.validate({ ...ok, homeserver_url: 'https://matrix.example.org/_matrix/client/v3' })).toBe(
      'config.homeserver_url must be the base address of the homeserver, without /_matrix',
    );
    expect(notifier.validate({ ...ok, homeserver_url: 'matrix.example.org' })).toBe(
      'config.homeserver_url must be an http or https address',
    );
    expect(notifier.validate({ ...ok, access_token: undefined })).toBe('config.access_token is required');
  });
});
