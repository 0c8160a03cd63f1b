import type { LookupAddress } from 'node:dns';
import * as net from 'node:net';
import { closedPort, listen, stop } from './testing/net';
import {
  BLOCKED_ADDRESS_MESSAGE,
  blockedHostProblem,
  guardedLookupVia,
  isBlockedAddress,
  isBlockedName,
  type AllAddressesLookup,
} from './address-guard';
import { TcpProbe } from './tcp/tcp.probe';

describe('address guard', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.0.1', true],
    ['169.254.255.255', true],
    ['100.100.100.200', true],
    ['fe80::1', true],
    ['FE80::a9fe:a9fe', true],
    ['febf:ffff::1', true],
    ['fd00:ec2::254', true],
    ['fd00:0ec2:0:0:0:0:0:254', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:a9fe:a9fe', true],
    ['fe80::1%eth0', true],
    ['127.0.0.1', false],
    ['169.253.255.255', false],
    ['10.0.0.1', false],
    ['::1', false],
    ['fec0::1', false],
    ['fd00:ec2::253', false],
    ['::ffff:127.0.0.1', false],
    ['example.com', false],
  ])('%s blocked: %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });

  it.each([
    'metadata.google.internal',
    'METADATA.google.internal.',
    'metadata',
    'instance-data',
    '[fe80::1]',
  ])('refuses the name %s without a lookup', (name) => expect(isBlockedName(name)).toBe(true));

  /** A resolver that knows a few names, as a hostile DNS server would answer them. */
  const zone: Record<string, LookupAddress[]> = {
    'rebind.test': [
      { address: '127.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
    'v6.test': [{ address: 'fe80::1', family: 6 }],
    'fine.test': [{ address: '127.0.0.1', family: 4 }],
  };
  const fakeDns: AllAddressesLookup = (hostname, _options, callback) => {
    const addresses = zone[hostname];
    if (addresses) callback(null, addresses);
    else callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
  };
  const lookup = guardedLookupVia(fakeDns);

  it('refuses a name when any of its addresses is link-local', async () => {
    expect(await blockedHostProblem('rebind.test', lookup)).toBe(`rebind.test: ${BLOCKED_ADDRESS_MESSAGE}`);
    expect(await blockedHostProblem('v6.test', lookup)).toBe(`v6.test: ${BLOCKED_ADDRESS_MESSAGE}`);
    expect(await blockedHostProblem('169.254.169.254', lookup)).toBe(
      `169.254.169.254: ${BLOCKED_ADDRESS_MESSAGE}`,
    );
    expect(await blockedHostProblem('[fd00:ec2::254]', lookup)).toBe(
      `[fd00:ec2::254]: ${BLOCKED_ADDRESS_MESSAGE}`,
    );
  });

  it('allows other names and literals, and a name that does not resolve', async () => {
    expect(await blockedHostProblem('fine.test', lookup)).toBeNull();
    expect(await blockedHostProblem('127.0.0.1', lookup)).toBeNull();
    expect(await blockedHostProblem('nowhere.test', lookup)).toBeNull();
  });

  it('hands net.connect the address it checked', async () => {
    const server = net.createServer((socket) => socket.end());
    const port = await listen(server);
    try {
      const socket = net.connect({ host: 'fine.test', port, lookup });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      expect(socket.remoteAddress).toBe('127.0.0.1');
      socket.destroy();
      const refused = net.connect({ host: 'rebind.test', port, lookup });
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => refused.once('error', resolve));
      expect(error.code).toBe('ERR_ADDRESS_BLOCKED');
    } finally {
      await stop(server);
    }
  });

  it('a guarded tcp probe refuses a link-local literal and connects to loopback as before', async () => {
    const probe = new TcpProbe();
    const run = (target: string) =>
      probe.run({
        target,
        options: {},
        timeoutMs: 5000,
        signal: new AbortController().signal,
        guarded: true,
      });
    expect(await run('169.254.169.254:80')).toEqual({
      success: false,
      message: BLOCKED_ADDRESS_MESSAGE,
      latencyMs: null,
    });
    expect(await run('metadata.google.internal:80')).toMatchObject({ message: BLOCKED_ADDRESS_MESSAGE });
    expect(await run(`localhost:${await closedPort()}`)).toMatchObject({ message: 'connection refused' });
  });
});
