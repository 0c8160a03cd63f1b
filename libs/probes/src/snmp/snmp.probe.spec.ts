import * as snmp from 'net-snmp';
import type { ProbeOutcome, ProbeRequest } from '../probe';
import { closedPort } from '../testing/net';
import { startSnmpAgent, type SnmpTestAgent } from '../testing/snmp-agent';
import { SnmpProbe } from './snmp.probe';

const COMMUNITY = 'Zebra-7f3c-community';
const UPTIME = '1.3.6.1.2.1.1.3.0';
const DESCR = '1.3.6.1.2.1.1.1.0';
const CONTACT = '1.3.6.1.2.1.1.4.0';
const TEMPERATURE = '1.3.6.1.4.1.55555.1.0';
const OCTETS = '1.3.6.1.4.1.55555.2.0';
const LOAD = '1.3.6.1.4.1.55555.3.0';
const MAC = '1.3.6.1.4.1.55555.4.0';

function counter64(value: bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(value);
  return buffer;
}

describe('SnmpProbe', () => {
  const probe = new SnmpProbe();
  let agent: SnmpTestAgent;
  const messages: string[] = [];

  async function run(options: ProbeRequest['options'], timeoutMs = 3000): Promise<ProbeOutcome> {
    const outcome = await probe.run({
      target: '127.0.0.1',
      options: { community: COMMUNITY, port: agent.port, ...options },
      timeoutMs,
      signal: new AbortController().signal,
    });
    messages.push(outcome.message);
    return outcome;
  }

  beforeAll(async () => {
    agent = await startSnmpAgent(COMMUNITY, [
      { name: 'sysUpTime', oid: '1.3.6.1.2.1.1.3', type: snmp.ObjectType.TimeTicks, value: 123456 },
      {
        name: 'sysDescr',
        oid: '1.3.6.1.2.1.1.1',
        type: snmp.ObjectType.OctetString,
        value: 'Linux edge-router 6.1',
      },
      // An agent that leaks the community in a value must not leak it into our message.
      {
        name: 'sysContact',
        oid: '1.3.6.1.2.1.1.4',
        type: snmp.ObjectType.OctetString,
        value: `ops ${COMMUNITY}`,
      },
      { name: 'temperature', oid: '1.3.6.1.4.1.55555.1', type: snmp.ObjectType.Gauge, value: 93 },
      {
        name: 'octets',
        oid: '1.3.6.1.4.1.55555.2',
        type: snmp.ObjectType.Counter64,
        value: counter64(1099511627776n),
      },
      { name: 'load', oid: '1.3.6.1.4.1.55555.3', type: snmp.ObjectType.OctetString, value: '0.15' },
      {
        name: 'mac',
        oid: '1.3.6.1.4.1.55555.4',
        type: snmp.ObjectType.OctetString,
        value: Buffer.from([0x00, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e]),
      },
    ]);
  });
  afterAll(async () => {
    await agent.close();
    // No message of any test above may carry the community.
    expect(messages.length).toBeGreaterThan(10);
    for (const message of messages) expect(message).not.toContain(COMMUNITY);
  });
  beforeEach(() => {
    agent.requests.length = 0;
    agent.errors.length = 0;
  });

  it('reports the OID and its value from exactly one GET', async () => {
    await expect(run({ oid: UPTIME })).resolves.toEqual({
      success: true,
      message: `${UPTIME} = 123456`,
      latencyMs: expect.any(Number),
    });
    expect(agent.requests).toEqual([{ kind: 'get', oids: [UPTIME] }]);
  });

  it('accepts an OID with a leading dot', async () => {
    await expect(run({ oid: `.${UPTIME}` })).resolves.toMatchObject({
      success: true,
      message: `${UPTIME} = 123456`,
    });
  });

  it('reads strings, 64-bit counters and binary strings', async () => {
    await expect(run({ oid: DESCR })).resolves.toMatchObject({ message: `${DESCR} = Linux edge-router 6.1` });
    await expect(run({ oid: OCTETS })).resolves.toMatchObject({ message: `${OCTETS} = 1099511627776` });
    await expect(run({ oid: MAC })).resolves.toMatchObject({ message: `${MAC} = 0x001a2b3c4d5e` });
    expect(agent.requests.map((r) => r.kind)).toEqual(['get', 'get', 'get']);
  });

  it('checks an expected substring', async () => {
    await expect(run({ oid: DESCR, expected: 'linux' })).resolves.toMatchObject({ success: true });
    await expect(run({ oid: DESCR, expected: 'Windows' })).resolves.toEqual({
      success: false,
      message: `${DESCR} = Linux edge-router 6.1 (expected "Windows")`,
      latencyMs: expect.any(Number),
    });
  });

  it('checks a numeric range', async () => {
    await expect(run({ oid: TEMPERATURE, min: 0, max: 80 })).resolves.toMatchObject({
      success: false,
      message: `${TEMPERATURE} = 93 (outside 0..80)`,
    });
    await expect(run({ oid: TEMPERATURE, min: 0, max: 100 })).resolves.toMatchObject({
      success: true,
      message: `${TEMPERATURE} = 93`,
    });
    await expect(run({ oid: TEMPERATURE, max: 90 })).resolves.toMatchObject({
      message: `${TEMPERATURE} = 93 (above 90)`,
    });
    await expect(run({ oid: TEMPERATURE, min: 95.5 })).resolves.toMatchObject({
      message: `${TEMPERATURE} = 93 (below 95.5)`,
    });
    await expect(run({ oid: LOAD, max: 1 })).resolves.toMatchObject({
      success: true,
      message: `${LOAD} = 0.15`,
    });
    await expect(run({ oid: OCTETS, min: 1e12 })).resolves.toMatchObject({ success: true });
    await expect(run({ oid: DESCR, max: 1 })).resolves.toMatchObject({
      success: false,
      message: `${DESCR} = Linux edge-router 6.1 (not a number)`,
    });
  });

  it('ignores range options of the wrong type at run time', async () => {
    await expect(run({ oid: TEMPERATURE, min: '0', max: '80' })).resolves.toMatchObject({
      success: true,
    });
  });

  it('fails on an OID the agent does not have', async () => {
    await expect(run({ oid: '1.3.6.1.4.1.99999.1.0' })).resolves.toMatchObject({
      success: false,
      message: '1.3.6.1.4.1.99999.1.0: no such object',
    });
    await expect(run({ oid: '1.3.6.1.2.1.1.3.1' })).resolves.toMatchObject({
      success: false,
      message: '1.3.6.1.2.1.1.3.1: no such instance',
    });
    expect(agent.requests.map((r) => r.kind)).toEqual(['get', 'get']);
  });

  it('never shows the community, even in a value', async () => {
    const outcome = await run({ oid: CONTACT });
    expect(outcome).toMatchObject({ success: true, message: `${CONTACT} = ops ***` });
  });

  it('times out with a wrong community, without naming either community', async () => {
    const started = Date.now();
    const outcome = await probe.run({
      target: '127.0.0.1',
      options: { community: 'Wrong-Okapi-9921', oid: UPTIME, port: agent.port },
      timeoutMs: 1000,
      signal: new AbortController().signal,
    });
    messages.push(outcome.message);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(outcome).toEqual({ success: false, message: 'timed out after 1 s', latencyMs: null });
    expect(outcome.message).not.toContain('Okapi');
    expect(agent.requests).toHaveLength(0);
    expect(agent.errors.length).toBeGreaterThan(0); // the agent saw and refused it
  });

  it('times out against a port where no agent listens', async () => {
    const started = Date.now();
    const outcome = await run({ oid: UPTIME, port: await closedPort() }, 1000);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(outcome).toMatchObject({ success: false, message: 'timed out after 1 s' });
  });

  it('needs an OID to run', async () => {
    await expect(run({})).resolves.toMatchObject({ success: false, message: 'options.oid is required' });
  });
});

describe('SnmpProbe.validate', () => {
  const probe = new SnmpProbe();

  it('marks the community as secret', () => {
    expect(probe.secretOptions).toEqual(['community']);
  });

  it('accepts a full draft', () => {
    expect(probe.validate('10.0.0.1', { oid: UPTIME })).toBeNull();
    expect(
      probe.validate('switch.lan', {
        oid: `.${UPTIME}`,
        community: 's',
        port: 1161,
        expected: 'x',
        min: 0,
        max: 8.5,
        timeout: 5,
      }),
    ).toBeNull();
    expect(probe.validate('[::1]', { oid: UPTIME })).toBeNull();
  });

  it.each([
    ['a b', { oid: UPTIME }, 'target must be a host name or IP address'],
    ['10.0.0.1:161', { oid: UPTIME }, 'target must be a host name or IP address'],
    ['10.0.0.1', {}, 'options.oid is required'],
    ['10.0.0.1', { oid: 'sysUpTime.0' }, 'options.oid must be a numeric OID like 1.3.6.1.2.1.1.3.0'],
    ['10.0.0.1', { oid: '1' }, 'options.oid must be a numeric OID like 1.3.6.1.2.1.1.3.0'],
    ['10.0.0.1', { oid: UPTIME, community: '' }, 'options.community must be a non-empty string'],
    ['10.0.0.1', { oid: UPTIME, community: 5 }, 'options.community must be a non-empty string'],
    ['10.0.0.1', { oid: UPTIME, port: 0 }, 'options.port must be a whole number from 1 to 65535'],
    ['10.0.0.1', { oid: UPTIME, min: '1' }, 'options.min must be a number'],
    ['10.0.0.1', { oid: UPTIME, max: null }, 'options.max must be a number'],
    ['10.0.0.1', { oid: UPTIME, min: 5, max: 1 }, 'options.min must not be greater than options.max'],
    ['10.0.0.1', { oid: UPTIME, version: '1' }, 'options.version is not an option of snmp sensors'],
  ])('rejects %j %j', (target, options, message) => {
    const problem = probe.validate(target, options);
    expect(problem).toBe(message);
  });

  it('never echoes the community in a validation message', () => {
    const problem = probe.validate('10.0.0.1', { oid: UPTIME, community: 'x'.repeat(300) });
    expect(problem).toBe('options.community must be a non-empty string');
  });
});
