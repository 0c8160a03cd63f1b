import * as net from 'node:net';
import * as tls from 'node:tls';
import type { ProbeRequest } from '../probe';
import { makeAuthority, makeServerCert, type KeyAndCert } from '../testing/certs';
import { closedPort, listen, silentServer, stop, UNRESOLVABLE_HOST } from '../testing/net';
import { parseHostPort } from './host-port';
import { TcpProbe } from './tcp.probe';

function run(probe: TcpProbe, target: string, options: ProbeRequest['options'] = {}, timeoutMs = 5000) {
  return probe.run({ target, options, timeoutMs, signal: new AbortController().signal });
}

describe('TcpProbe', () => {
  const probe = new TcpProbe();
  const received: Buffer[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
  });
  let port = 0;

  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(() => stop(server));

  it('connects, writes nothing and closes', async () => {
    const outcome = await run(probe, `127.0.0.1:${port}`);
    expect(outcome).toEqual({ success: true, message: 'connected', latencyMs: expect.any(Number) });
    expect(connections).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received).toHaveLength(0);
  });

  it('connects by name', async () => {
    await expect(run(probe, `localhost:${port}`)).resolves.toMatchObject({
      success: true,
      message: 'connected',
    });
  });

  it('connects to [::1]:port', async () => {
    const server6 = net.createServer((socket) => socket.on('error', () => undefined));
    let port6: number;
    try {
      port6 = await listen(server6, '::1');
    } catch {
      return; // no IPv6 on this machine
    }
    try {
      await expect(run(probe, `[::1]:${port6}`)).resolves.toMatchObject({
        success: true,
        message: 'connected',
      });
    } finally {
      await stop(server6);
    }
  });

  it('reports a refused connection', async () => {
    await expect(run(probe, `127.0.0.1:${await closedPort()}`)).resolves.toEqual({
      success: false,
      message: 'connection refused',
      latencyMs: null,
    });
  });

  it('reports a host name that does not resolve', async () => {
    await expect(run(probe, `${UNRESOLVABLE_HOST}:80`)).resolves.toMatchObject({
      success: false,
      message: `cannot resolve host ${UNRESOLVABLE_HOST}`,
    });
  });

  it('never throws on a malformed target', async () => {
    await expect(run(probe, 'no-port')).resolves.toMatchObject({ success: false });
    await expect(run(probe, '127.0.0.1:99999')).resolves.toMatchObject({ success: false });
  });

  it('times out when the TLS handshake never comes, within the time-out', async () => {
    const silent = silentServer();
    const silentPort = await listen(silent);
    try {
      const started = Date.now();
      const outcome = await run(probe, `127.0.0.1:${silentPort}`, { tls: true }, 1000);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(outcome).toEqual({ success: false, message: 'timed out after 1 s', latencyMs: null });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(silent.openSockets.size).toBe(0); // the probe closed its socket
    } finally {
      await stop(silent);
    }
  });
});

describe('TcpProbe with TLS', () => {
  let authority: KeyAndCert;
  const servers: tls.Server[] = [];

  async function serve(pair: KeyAndCert): Promise<number> {
    const server = tls.createServer({ key: pair.key, cert: pair.cert }, (socket) => {
      socket.on('error', () => undefined);
      socket.end();
    });
    server.on('tlsClientError', () => undefined);
    servers.push(server);
    return listen(server);
  }

  beforeAll(async () => {
    authority = await makeAuthority();
  });
  afterAll(() => Promise.all(servers.map((server) => stop(server))));

  it('rejects a self-signed certificate unless insecure_skip_verify is set', async () => {
    const port = await serve(await makeServerCert());
    const probe = new TcpProbe();
    await expect(run(probe, `127.0.0.1:${port}`, { tls: true })).resolves.toEqual({
      success: false,
      message: 'certificate signed by unknown authority',
      latencyMs: null,
    });
    await expect(run(probe, `127.0.0.1:${port}`, { tls: true, insecure_skip_verify: true })).resolves.toEqual(
      {
        success: true,
        message: 'connected (TLS)',
        latencyMs: expect.any(Number),
        certExpiresAt: expect.any(Number),
      },
    );
    // A plain connect to a TLS port is just a connect.
    await expect(run(probe, `127.0.0.1:${port}`)).resolves.toMatchObject({
      success: true,
      message: 'connected',
    });
  });

  it('accepts a trusted certificate and applies cert_warn_days', async () => {
    const port = await serve(await makeServerCert({ toDays: 10.5 }, authority));
    const probe = new TcpProbe({ ca: authority.cert });
    const target = `localhost:${port}`;
    const plain = await run(probe, target, { tls: true });
    expect(plain).toMatchObject({ success: true, message: 'connected (TLS)' });
    // The certificate's end, for GET /metrics: 10.5 days from its making (whole seconds).
    expect(Math.abs(plain.certExpiresAt! - (Date.now() + 10.5 * 86_400_000))).toBeLessThan(3_600_000);
    expect(plain.certExpiresAt! % 1000).toBe(0);
    await expect(run(probe, target, { tls: true, cert_warn_days: 30 })).resolves.toMatchObject({
      certExpiresAt: plain.certExpiresAt,
      success: false,
      message: expect.stringMatching(/^certificate expires in 10 days \(\d{4}-\d{2}-\d{2}\)$/),
    });
    await expect(run(probe, target, { tls: true, cert_warn_days: 7 })).resolves.toMatchObject({
      success: true,
      message: expect.stringMatching(
        /^connected \(TLS\), certificate expires in 10 days \(\d{4}-\d{2}-\d{2}\)$/,
      ),
    });
  });

  it('names the date of an expired certificate', async () => {
    const port = await serve(await makeServerCert({ fromDays: -20, toDays: -3 }, authority));
    const outcome = await run(new TcpProbe({ ca: authority.cert }), `127.0.0.1:${port}`, { tls: true });
    expect(outcome).toMatchObject({
      success: false,
      message: expect.stringMatching(/^certificate expired on \d{4}-\d{2}-\d{2}$/),
    });
  });
});

describe('TcpProbe.validate', () => {
  const probe = new TcpProbe();

  it.each(['example.com:443', '127.0.0.1:22', '[::1]:8080', 'db_1:5432'])('accepts %s', (target) => {
    expect(
      probe.validate(target, { tls: true, insecure_skip_verify: false, cert_warn_days: 7, timeout: 5 }),
    ).toBeNull();
  });

  it.each([
    ['example.com', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['example.com:0', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['example.com:65536', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['::1:80', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['http://example.com:80', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['-bad-:80', {}, 'target must have the form host:port (or [IPv6]:port)'],
    ['example.com:443', { tls: 'yes' }, 'options.tls must be true or false'],
    ['example.com:443', { insecure_skip_verify: 1 }, 'options.insecure_skip_verify must be true or false'],
    [
      'example.com:443',
      { cert_warn_days: 'x' },
      'options.cert_warn_days must be a whole number from 0 to 3650',
    ],
    ['example.com:443', { port: 1 }, 'options.port is not an option of tcp sensors'],
  ])('rejects %s %j', (target, options, message) => {
    expect(probe.validate(target, options)).toBe(message);
  });

  it('parses host:port forms', () => {
    expect(parseHostPort('[::1]:53')).toEqual({ host: '::1', port: 53 });
    expect(parseHostPort('::1', 53)).toEqual({ host: '::1', port: 53 });
    expect(parseHostPort('[::1]', 53)).toEqual({ host: '::1', port: 53 });
    expect(parseHostPort('1.1.1.1', 53)).toEqual({ host: '1.1.1.1', port: 53 });
    expect(parseHostPort('1.1.1.1')).toBeNull();
    expect(parseHostPort('[::1]')).toBeNull();
  });
});
