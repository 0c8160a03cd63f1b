import { once } from 'node:events';
import * as net from 'node:net';
import { makeServerCert, type KeyAndCert } from '../../probes/src/testing/certs';
import { deliverWithRetries } from './deliver';
import { EmailNotifier, passwordForms } from './email.notifier';
import { DeliveryError } from './notifier';
import { openSignal, rejection, sampleNotification } from './testing/fake-service';
import { parseMessage } from './testing/mime';
import { startSmtpPeer, type SmtpPeer } from './testing/smtp-peer';

jest.setTimeout(30_000);

const USER = 'alerts@example.com';
const PASSWORD = 'app-pässword-9f3k';
const notifier = new EmailNotifier();
const noSleep = () => Promise.resolve();

describe('EmailNotifier against aiosmtpd on 127.0.0.1', () => {
  let cert: KeyAndCert;
  const peers: SmtpPeer[] = [];
  const peer = async (options: Parameters<typeof startSmtpPeer>[0]) => {
    const started = await startSmtpPeer(options);
    peers.push(started);
    return started;
  };

  beforeAll(async () => {
    cert = await makeServerCert();
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close()));
  });

  it('sends the envelope, subject, text body and escaped HTML alternative (security none)', async () => {
    const smtp = await peer({ security: 'none' });
    await notifier.send(
      {
        host: '127.0.0.1',
        port: String(smtp.port),
        security: 'none',
        from: 'Monitor <monitor@example.com>',
        to: 'ops@example.com, Night Shift <oncall@example.org>',
        reply_to: 'noc@example.com',
      },
      sampleNotification({
        title: 'DOWN: Web <shop>',
        message: 'HTTP 503 & "bad"\nsecond line <script>',
      }),
      openSignal(),
    );
    const [mail] = await smtp.waitFor(1);
    expect(mail?.mail_from).toBe('monitor@example.com');
    expect(mail?.rcpt_tos).toEqual(['ops@example.com', 'oncall@example.org']);
    expect(mail?.authenticated).toBe(false);
    const message = parseMessage(mail?.data ?? '');
    expect(message.headers['subject']).toBe('DOWN: Web <shop>');
    expect(message.headers['from']).toBe('Monitor <monitor@example.com>');
    expect(message.headers['reply-to']).toBe('noc@example.com');
    expect(message.headers['content-type']).toMatch(/^multipart\/alternative/);
    const text = message.parts.find((p) => p.headers['content-type']?.startsWith('text/plain'));
    const html = message.parts.find((p) => p.headers['content-type']?.startsWith('text/html'));
    expect(text?.body).toBe('HTTP 503 & "bad"\nsecond line <script>\n\nhttp://monitor.local/sensors/s1');
    expect(html?.body).toContain(
      '<p>HTTP 503 &amp; &quot;bad&quot;<br>\nsecond line &lt;script&gt;</p>\n<p><a href="http://monitor.local/sensors/s1">',
    );
    expect(html?.body).not.toContain('<script>');
  });

  it('refuses a self-signed STARTTLS server unless insecure_skip_verify is set, then signs in', async () => {
    const smtp = await peer({ security: 'starttls', tls: cert, auth: { user: USER, password: PASSWORD } });
    const config = {
      host: '127.0.0.1',
      port: smtp.port,
      security: 'starttls',
      username: USER,
      password: PASSWORD,
      from: USER,
      to: 'ops@example.com',
    };
    const refused = await rejection(notifier.send(config, sampleNotification(), openSignal()));
    expect(refused).toBeInstanceOf(DeliveryError);
    expect(refused.message).toMatch(
      /^the SMTP server 127\.0\.0\.1:\d+ presented a certificate that is not trusted \(.*self-signed.*\); set insecure_skip_verify to accept it$/,
    );
    expect(smtp.received).toHaveLength(0);

    await notifier.send({ ...config, insecure_skip_verify: true }, sampleNotification(), openSignal());
    const [mail] = await smtp.waitFor(1);
    expect(mail?.authenticated).toBe(true);
    expect(mail?.rcpt_tos).toEqual(['ops@example.com']);
  });

  it('fails a wrong password with the server reply, retries it as a 5xx, and never shows the password', async () => {
    const smtp = await peer({ security: 'starttls', tls: cert, auth: { user: USER, password: 'right-one' } });
    const config = {
      host: '127.0.0.1',
      port: String(smtp.port),
      username: USER,
      password: PASSWORD,
      from: USER,
      to: 'ops@example.com',
      insecure_skip_verify: true,
    };
    const outcome = await deliverWithRetries(notifier, config, sampleNotification(), { sleep: noSleep });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(3);
    if (outcome.ok) return;
    expect(outcome.error.status).toBe(535);
    expect(outcome.error.message).toMatch(/^the SMTP server 127\.0\.0\.1:\d+ refused the sign-in: .*535/);
    for (const { value } of passwordForms(USER, PASSWORD)) {
      expect(outcome.error.message).not.toContain(value);
    }
    expect(smtp.received).toHaveLength(0);
  });

  it('delivers over implicit TLS (security tls)', async () => {
    const smtp = await peer({ security: 'tls', tls: cert, auth: { user: USER, password: PASSWORD } });
    const config = {
      host: '127.0.0.1',
      port: String(smtp.port),
      security: 'tls',
      username: USER,
      password: PASSWORD,
      from: USER,
      to: 'a@example.com,b@example.com,c@example.com',
    };
    const refused = await rejection(notifier.send(config, sampleNotification(), openSignal()));
    expect(refused.message).toMatch(/not trusted/);
    await notifier.send({ ...config, insecure_skip_verify: true }, sampleNotification(), openSignal());
    const [mail] = await smtp.waitFor(1);
    expect(mail?.rcpt_tos).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(parseMessage(mail?.data ?? '').headers['subject']).toBe('DOWN: Web shop');
  });

  it('refuses to send in clear text when starttls is asked for and the server does not offer it', async () => {
    const smtp = await peer({ security: 'none' });
    const error = await rejection(
      notifier.send(
        { host: '127.0.0.1', port: smtp.port, security: 'starttls', from: USER, to: 'ops@example.com' },
        sampleNotification(),
        openSignal(),
      ),
    );
    expect(error.message).toMatch(/^the SMTP server 127\.0\.0\.1:\d+ does not offer STARTTLS/);
    expect(smtp.received).toHaveLength(0);
  });

  it.each([
    ['a 4xx reply is not retried', 'reject450@example.com', 1, 450],
    ['a 5xx reply is retried', 'reject550@example.com', 3, 550],
  ])('%s', async (_, to, attempts, status) => {
    const smtp = await peer({ security: 'none' });
    const outcome = await deliverWithRetries(
      notifier,
      { host: '127.0.0.1', port: smtp.port, security: 'none', from: USER, to },
      sampleNotification(),
      { sleep: noSleep },
    );
    expect(outcome).toMatchObject({ ok: false, attempts });
    if (outcome.ok) return;
    expect(outcome.error.status).toBe(status);
    expect(outcome.error.message).toMatch(new RegExp(`refused the message: .*${status}`));
  });

  it('reports a refused recipient among accepted ones without a retry (the others have it)', async () => {
    const smtp = await peer({ security: 'none' });
    const outcome = await deliverWithRetries(
      notifier,
      {
        host: '127.0.0.1',
        port: smtp.port,
        security: 'none',
        from: USER,
        to: 'ops@example.com, reject550@example.com',
      },
      sampleNotification(),
      { sleep: noSleep },
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 1 });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/refused the recipients reject550@example\.com$/);
    expect((await smtp.waitFor(1))[0]?.rcpt_tos).toEqual(['ops@example.com']);
  });

  it('stops a send at once when the attempt is aborted (a server that never greets)', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const controller = new AbortController();
    silent.once('connection', () => controller.abort());
    try {
      const error = await rejection(
        notifier.send(
          {
            host: '127.0.0.1',
            port: (silent.address() as net.AddressInfo).port,
            security: 'none',
            from: USER,
            to: 'ops@example.com',
          },
          sampleNotification(),
          controller.signal,
        ),
      );
      expect(error).toMatchObject({ retryable: true, status: null });
      expect(error.message).toMatch(
        /^the SMTP server 127\.0\.0\.1:\d+ did not finish before the attempt's time limit$/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('retries when nothing listens, naming the server', async () => {
    const smtp = await peer({ security: 'none' });
    const port = smtp.port;
    await smtp.close();
    const outcome = await deliverWithRetries(
      notifier,
      { host: '127.0.0.1', port, security: 'none', from: USER, to: 'ops@example.com' },
      sampleNotification(),
      { sleep: noSleep },
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 3 });
    if (!outcome.ok) {
      expect(outcome.error.message).toMatch(
        new RegExp(`^could not reach the SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
      );
    }
  });
});

describe('EmailNotifier.validate', () => {
  const base = { host: 'smtp.example.com', from: 'monitor@example.com', to: 'ops@example.com' };
  it.each<[string, Record<string, unknown>, string | null]>([
    ['the least it needs', {}, null],
    [
      'every field',
      {
        port: '2525',
        security: 'TLS',
        username: 'u',
        password: 'p',
        reply_to: 'r@x.org',
        insecure_skip_verify: true,
      },
      null,
    ],
    ['a numeric port', { port: 465 }, null],
    ['several recipients with names', { to: 'A <a@x.org>, b@y.org;c@z.org' }, null],
    ['no host', { host: '' }, 'config.host is required'],
    [
      'a URL as host',
      { host: 'smtp://mail.example.com' },
      'config.host must be a host name or address without scheme, port or spaces',
    ],
    ['port 0', { port: '0' }, 'config.port must be a whole number from 1 to 65535'],
    ['port 65536', { port: 65536 }, 'config.port must be a whole number from 1 to 65535'],
    ['port text', { port: 'smtp' }, 'config.port must be a whole number from 1 to 65535'],
    ['an unknown security', { security: 'ssl' }, 'config.security must be one of none, starttls, tls'],
    ['a password without user', { password: 'p' }, 'config.username is required when config.password is set'],
    ['no recipient', { to: '' }, 'config.to is required'],
    [
      'a bad recipient among good ones',
      { to: 'a@x.org, not an address' },
      'config.to has an invalid address "not an address"',
    ],
    ['a double @', { to: 'a@@x.org' }, 'config.to has an invalid address "a@@x.org"'],
    ['two senders', { from: 'a@x.org, b@x.org' }, 'config.from must be one address'],
    ['a bad reply_to', { reply_to: 'nobody' }, 'config.reply_to has an invalid address "nobody"'],
    [
      'a non-boolean insecure_skip_verify',
      { insecure_skip_verify: 'yes' },
      'config.insecure_skip_verify must be true or false',
    ],
    ['an unknown field', { cc: 'x@y.org' }, 'config.cc is not a field of this channel type'],
  ])('%s', (_, extra, expected) => {
    expect(notifier.validate({ ...base, ...extra })).toBe(expected);
  });

  it('never quotes the password', () => {
    expect(notifier.validate({ ...base, password: 'hunter22', port: 'x' })).not.toContain('hunter22');
  });
});
