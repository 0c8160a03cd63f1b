import { BLOCKED_ADDRESS_MESSAGE } from './address-guard';
import { restrictedDraftRefusal, withoutPeerText } from './draft-probe';
import { DockerProbe } from './docker/docker.probe';
import { DnsProbe } from './dns/dns.probe';
import { HttpProbe } from './http/http.probe';
import type { ProbeOutcome } from './probe';
import { SnmpProbe } from './snmp/snmp.probe';

const outcome = (success: boolean, message: string, statusCode?: number | null): ProbeOutcome => ({
  success,
  message,
  latencyMs: 4.2,
  ...(statusCode === undefined ? {} : { statusCode }),
});

describe('withoutPeerText', () => {
  it.each<[ProbeOutcome, string]>([
    [outcome(true, 'HTTP 200', 200), 'HTTP 200'],
    [outcome(true, 'HTTP 200, certificate expires in 20 days', 200), 'HTTP 200'],
    [outcome(false, 'HTTP 503', 503), 'HTTP 503'],
    [outcome(false, 'JSON $.SecretAccessKey is "AKIA…", expected == "x"', 200), 'HTTP 200, check failed'],
    [outcome(false, 'keyword "wJalr" found', 200), 'HTTP 200, check failed'],
    [outcome(true, 'TXT v=spf1 include:internal', null), 'check passed'],
    [outcome(true, '1.3.6.1.2.1.1.3.0 = 12345 (TimeTicks)'), 'check passed'],
    [outcome(false, 'web-1 is exited (restarts: 3)'), 'check failed'],
    [outcome(false, 'certificate of example.com expired on 2025-01-01'), 'check failed'],
    [outcome(false, 'connection refused'), 'connection refused'],
    [outcome(false, 'timed out after 10 s'), 'timed out after 10 s'],
    [outcome(false, 'cannot resolve host db.internal'), 'cannot resolve host db.internal'],
    [
      outcome(false, 'cannot resolve host db.internal within 2 s'),
      'cannot resolve host db.internal within 2 s',
    ],
    [outcome(false, 'cannot resolve host x: v=spf1 leaked text'), 'check failed'],
    [outcome(false, BLOCKED_ADDRESS_MESSAGE), BLOCKED_ADDRESS_MESSAGE],
    [outcome(false, 'SNMP error: agent said something'), 'check failed'],
  ])('%j reads %s', (given, message) => {
    expect(withoutPeerText({ ...given, certExpiresAt: 1 })).toEqual({
      success: given.success,
      message,
      latencyMs: 4.2,
      statusCode: given.statusCode ?? null,
    });
  });
});

describe('restrictedDraftRefusal', () => {
  it('names a forbidden option before looking at any address', async () => {
    await expect(
      restrictedDraftRefusal(new DockerProbe(), 'web', { socket: '/etc/shadow' }),
    ).resolves.toEqual({
      kind: 'forbidden',
      message: 'options.socket is allowed in a draft probe only for administrators',
    });
    await expect(
      restrictedDraftRefusal(new HttpProbe(), 'http://169.254.169.254/', { method: 'PUT' }),
    ).resolves.toMatchObject({ kind: 'forbidden' });
  });

  it('refuses the peer a draft would reach, per type', async () => {
    await expect(
      restrictedDraftRefusal(new DnsProbe(), 'example.com', { server: '[fe80::1]:53' }),
    ).resolves.toEqual({
      kind: 'invalid',
      message: `fe80::1: ${BLOCKED_ADDRESS_MESSAGE}; only administrators may probe it`,
    });
    await expect(
      restrictedDraftRefusal(new SnmpProbe(), '[fd00:ec2::254]', { oid: '1.3' }),
    ).resolves.toMatchObject({
      kind: 'invalid',
    });
    // The queried name is only asked about: not a peer.
    await expect(
      restrictedDraftRefusal(new DnsProbe(), 'metadata.google.internal', { server: '127.0.0.1' }),
    ).resolves.toBeNull();
    await expect(restrictedDraftRefusal(new HttpProbe(), 'http://127.0.0.1:8080/', {})).resolves.toBeNull();
  });
});
