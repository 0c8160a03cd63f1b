import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Runs the probe in child processes, each in a network namespace of its own (`unshare -n`): only
 * a loopback interface, its own ping_group_range ("1 0", the kernel default) and ICMP sysctls, and
 * no route anywhere, so nothing leaves it and nothing here touches the host's settings. The child
 * loads the TypeScript sources through @swc/core. Needs root (unshare, identity changes); without
 * it the tests fail, they do not skip.
 */
jest.setTimeout(30_000);

const REPO_ROOT = resolve(__dirname, '../../../..');
const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'].find((path) => existsSync(path));
const NOBODY = 65534;

function requireRootAndUnshare(): string {
  if (process.getuid?.() !== 0) {
    throw new Error('this test needs root: it creates network namespaces and changes uid in child processes');
  }
  if (UNSHARE === undefined)
    throw new Error('this test needs unshare(1) (util-linux) to create a network namespace');
  return UNSHARE;
}

interface Setup {
  /** Shell commands run as root inside the new namespace before node starts. */
  shell?: string[];
  /** Drop to uid/gid 65534 after the sources are loaded. */
  asNobody?: boolean;
}

/**
 * `body` is the body of an async function with `probe` (ping.probe.ts), `pingModule` (ping.ts),
 * `capability` (capability.ts) and `addon` in scope; its return value comes back as JSON.
 */
function inNamespace(body: string, setup: Setup = {}): Promise<unknown> {
  const unshare = requireRootAndUnshare();
  const shell = ['ip link set lo up', ...(setup.shell ?? []), 'exec "$0" -e "$1"'].join(' && ');
  const script = `
    const fs = require('node:fs');
    const { transformSync } = require(${JSON.stringify(require.resolve('@swc/core'))});
    require.extensions['.ts'] = (module, filename) => {
      const options = { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } };
      module._compile(transformSync(fs.readFileSync(filename, 'utf8'), options).code, filename);
    };
    const dir = ${JSON.stringify(__dirname)};
    const probe = require(dir + '/ping.probe.ts');
    const pingModule = require(dir + '/ping.ts');
    const capability = require(dir + '/capability.ts');
    const addon = require(dir + '/icmp-addon.ts').icmpAddon();
    if (${setup.asNobody === true}) {
      process.setgroups([]);
      process.setgid(${NOBODY});
      process.setuid(${NOBODY});
    }
    const request = (target, options = {}, timeoutMs = 1000) => ({ target, options, timeoutMs, signal: new AbortController().signal });
    (async () => { ${body} })().then(
      (result) => process.stdout.write(JSON.stringify(result === undefined ? null : result)),
      (error) => { process.stderr.write(String(error && error.stack || error)); process.exit(3); },
    );`;
  return new Promise((settle, reject) => {
    execFile(
      unshare,
      ['-n', '/bin/sh', '-c', shell, process.execPath, script],
      { cwd: REPO_ROOT },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`child failed (${error.message.split('\n')[0]}): ${stderr}`));
        else settle(JSON.parse(stdout));
      },
    );
  });
}

const IGNORE_ECHO = [
  'echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all',
  'echo 1 > /proc/sys/net/ipv6/icmp/echo_ignore_all',
];
const WIDE_RANGE = ['echo "0 2147483647" > /proc/sys/net/ipv4/ping_group_range'];

describe('both sockets refused', () => {
  it('names both and why, for an unprivileged process outside ping_group_range', async () => {
    const outcomes = await inNamespace(
      `return [await probe.pingProbe.run(request('127.0.0.1')), await probe.pingProbe.run(request('::1'))];`,
      { asNobody: true },
    );
    const message =
      `cannot ping: datagram ICMP socket: permission denied (net.ipv4.ping_group_range excludes gid ${NOBODY}); ` +
      'raw ICMP socket: operation not permitted (needs root or CAP_NET_RAW)';
    expect(outcomes).toEqual([
      { success: false, message, latencyMs: null },
      { success: false, message, latencyMs: null },
    ]);
  });

  it('reports the errno names from the addon', async () => {
    const codes = await inNamespace(
      `return ['dgram', 'raw'].map((kind) => { try { addon.open(kind, 4, () => {}); return 'opened'; } catch (e) { return [e.code, e.syscall, e.message]; } });`,
      { asNobody: true },
    );
    expect(codes).toEqual([
      ['EACCES', 'socket', 'permission denied'],
      ['EPERM', 'socket', 'operation not permitted'],
    ]);
  });
});

describe('unprivileged datagram socket', () => {
  it('pings as uid 65534 when ping_group_range admits it', async () => {
    const result = (await inNamespace(
      `return [await pingModule.ping({ address: '127.0.0.1', family: 4, count: 1, timeoutMs: 1000 }),
               await pingModule.ping({ address: '::1', family: 6, count: 1, timeoutMs: 1000 }),
               await probe.pingProbe.run(request('127.0.0.1', { count: 2 })), process.getuid()];`,
      { shell: WIDE_RANGE, asNobody: true },
    )) as [unknown, unknown, { success: boolean; message: string }, number];
    expect(result[0]).toMatchObject({ ok: true, kind: 'dgram', rtts: [expect.any(Number)] });
    expect(result[1]).toMatchObject({ ok: true, kind: 'dgram', rtts: [expect.any(Number)] });
    expect(result[2]).toMatchObject({
      success: true,
      message: expect.stringMatching(/^2\/2 replies from 127\.0\.0\.1, avg /),
    });
    expect(result[3]).toBe(NOBODY);
  });
});

describe('raw-socket capability across the identity drop', () => {
  const drop = `() => { process.setgroups([]); process.setgid(${NOBODY}); process.setuid(${NOBODY}); }`;

  it('keeps CAP_NET_RAW alone, so a raw ping works as uid 65534', async () => {
    const result = (await inNamespace(
      `const outcome = capability.keepRawSocketCapability(${drop});
       const status = fs.readFileSync('/proc/self/status', 'utf8');
       const caps = Object.fromEntries(status.split('\\n').filter((l) => l.startsWith('Cap')).map((l) => l.split(/:\\s+/)));
       const report = await pingModule.ping({ address: '127.0.0.1', family: 4, count: 1, timeoutMs: 1000 });
       return { outcome, uid: process.getuid(), gid: process.getgid(), caps, has: addon.hasRawSocketCapability(), report };`,
    )) as Record<string, unknown>;
    expect(result).toMatchObject({
      outcome: { kept: true },
      uid: NOBODY,
      gid: NOBODY,
      has: true,
      // Bit 13 (CAP_NET_RAW) and nothing else.
      caps: { CapPrm: '0000000000002000', CapEff: '0000000000002000', CapInh: '0000000000000000' },
      report: { ok: true, kind: 'raw', rtts: [expect.any(Number)] },
    });
  });

  it('loses it without the helper', async () => {
    const outcome = await inNamespace(
      `(${drop})(); return (await probe.pingProbe.run(request('127.0.0.1'))).message;`,
    );
    expect(outcome).toMatch(/raw ICMP socket: operation not permitted/);
  });

  it('reports, not throws, when there is nothing to keep', async () => {
    const outcome = await inNamespace(`return capability.keepRawSocketCapability(() => {});`, {
      asNobody: true,
    });
    expect(outcome).toEqual({ kept: false, reason: 'the process had no CAP_NET_RAW to keep' });
  });
});

describe('no reply', () => {
  it('fails after the time-out, naming it, without blocking the event loop', async () => {
    const result = (await inNamespace(
      `let ticks = 0;
       const ticker = setInterval(() => ticks++, 10);
       const started = Date.now();
       const v4 = await probe.pingProbe.run(request('127.0.0.1', {}, 1000));
       const elapsed = Date.now() - started;
       const v6 = await probe.pingProbe.run(request('::1', { count: 2 }, 500));
       clearInterval(ticker);
       return { v4, v6, elapsed, ticks };`,
      { shell: IGNORE_ECHO },
    )) as { v4: unknown; v6: unknown; elapsed: number; ticks: number };
    expect(result.v4).toEqual({
      success: false,
      message: 'no reply from 127.0.0.1 within 1 s',
      latencyMs: null,
    });
    expect(result.v6).toEqual({
      success: false,
      message: 'no reply from ::1 within 0.5 s (2 requests)',
      latencyMs: null,
    });
    expect(result.elapsed).toBeGreaterThanOrEqual(990);
    expect(result.elapsed).toBeLessThan(1250); // the scheduler allows 250 ms of grace
    // A 10 ms timer kept firing all along the 1.5 s of waiting.
    expect(result.ticks).toBeGreaterThan(50);
  });

  it('is up with the loss shown when only some replies arrive', async () => {
    const outcome = await inNamespace(
      `// The first request (t = 0) is answered; the others (every 250 ms) are not.
       setTimeout(() => fs.writeFileSync('/proc/sys/net/ipv4/icmp_echo_ignore_all', '1'), 100);
       return probe.pingProbe.run(request('127.0.0.1', { count: 4 }, 2000));`,
    );
    expect(outcome).toMatchObject({
      success: true,
      message: expect.stringMatching(/^1\/4 replies from 127\.0\.0\.1, avg [0-9.]+ ms$/),
    });
  });

  it('settles promptly when aborted', async () => {
    const result = (await inNamespace(
      `const controller = new AbortController();
       setTimeout(() => controller.abort(), 100);
       const started = Date.now();
       const outcome = await probe.pingProbe.run({ ...request('127.0.0.1', {}, 5000), signal: controller.signal });
       return { outcome, elapsed: Date.now() - started };`,
      { shell: IGNORE_ECHO },
    )) as { outcome: unknown; elapsed: number };
    expect(result.outcome).toEqual({
      success: false,
      message: 'probe cancelled',
      latencyMs: null,
    });
    expect(result.elapsed).toBeLessThan(500);
  });
});

describe('unreachable and unresolvable', () => {
  it('names a send error (no route) and a name that does not resolve', async () => {
    const outcomes = await inNamespace(
      `return [await probe.pingProbe.run(request('10.255.255.1')), await probe.pingProbe.run(request('nothing-here.invalid'))];`,
    );
    expect(outcomes).toEqual([
      { success: false, message: 'cannot ping 10.255.255.1: network is unreachable', latencyMs: null },
      { success: false, message: 'cannot resolve host nothing-here.invalid', latencyMs: null },
    ]);
  });
});
