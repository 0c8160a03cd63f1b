import type { SearchHit, SearchResponse } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import { createSensor, feed, Sensor, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const COMMUNITY = 'sekritcommunity';
const HEADER_TOKEN = 'hushhushtoken';
const HOOK_PATH = 'privatehookpath';

describe('GET /api/search', () => {
  let t: TestApp;
  let clock: MutableClock;
  let now: number;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;
  let key: Headers;
  let checkout: Sensor;
  let coreSwitch: Sensor;
  let dnsCheck: Sensor;
  let channelId: number;
  let openIncident: number;
  let resolvedIncident: number;

  async function search(q: string | null, headers: Headers = viewer): Promise<SearchResponse> {
    const path = q === null ? '/api/search' : `/api/search?q=${encodeURIComponent(q)}`;
    const res = await call<SearchResponse>(t, 'GET', path, undefined, headers);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** `kind:ref` of every hit, in answer order. */
  const refs = async (q: string, headers: Headers = viewer): Promise<string[]> =>
    (await search(q, headers)).hits.map((h) => `${h.kind}:${h.ref}`);

  const ofKind = async (q: string, kind: SearchHit['kind'], headers: Headers = viewer) =>
    (await search(q, headers)).hits.filter((h) => h.kind === kind);

  beforeAll(async () => {
    clock = new MutableClock();
    now = clock.now();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    key = await apiKeyHeaders(t, admin);

    await sql(
      t,
      `INSERT INTO sites (name, kind, lat, lon, created_at, updated_at) VALUES
       ('Zurich-DC', 'external', 47.37, 8.54, ?, ?), ('Berlin lab', 'local', NULL, NULL, ?, ?)`,
      [now, now, now, now],
    );
    checkout = await createSensor(t, admin, {
      name: 'Checkout API',
      type: 'http',
      target: 'https://shop.example.com/health',
      group: 'payments',
      tags: ['critical', 'eu-west'],
      site: 'Zurich-DC',
      options: { headers: { Authorization: `Bearer ${HEADER_TOKEN}` } },
    });
    coreSwitch = await createSensor(t, admin, {
      name: 'core switch',
      type: 'snmp',
      target: '10.0.0.1',
      options: { community: COMMUNITY, oid: '1.3.6.1.2.1.1.3.0' },
    });
    dnsCheck = await createSensor(t, admin, { name: 'dns check', type: 'dns', target: 'example.org' });
    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      { name: 'Ops pager', type: 'webhook', config: { url: `https://hooks.example.net/${HOOK_PATH}` } },
      admin,
    );
    expect(channel.status).toBe(201);
    channelId = channel.body.id;

    const incident = async (sensor: Sensor, ago: number, open: boolean, cause: string, note: string) => {
      const [row] = await sql<{ id: number }>(
        t,
        `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, note, acknowledged, reconstructed)
         VALUES (?, ?, ?, ?, ?, false, false) RETURNING id`,
        [sensor.id, now - ago, open ? null : now - ago + MINUTE, cause, note],
      );
      return row.id;
    };
    openIncident = await incident(checkout, HOUR, true, 'TLS handshake failed', 'Renewed the certificate');
    resolvedIncident = await incident(dnsCheck, 3 * DAY, false, 'NXDOMAIN for example.org', '');
  });

  afterAll(async () => {
    await t.close();
  });

  it('requires authentication', async () => {
    expect((await call(t, 'GET', '/api/search?q=checkout')).status).toBe(401);
  });

  it('sensor: matched on name (case-insensitively), with the hit fields filled', async () => {
    // The open incident of that sensor matches on the sensor name too.
    expect(await search('CHECKOUT')).toEqual({
      hits: [
        {
          kind: 'sensor',
          ref: checkout.id,
          title: 'Checkout API',
          sub: 'http · https://shop.example.com/health',
          state: 'unknown',
          at: null,
        },
        expect.objectContaining({ kind: 'incident', ref: openIncident }),
      ],
      truncated: false,
    });
  });

  it('sensor: matched on target, group, each tag, type and site name', async () => {
    expect(await refs('shop.example')).toEqual([`sensor:${checkout.id}`]);
    expect(await refs('paymen')).toEqual([`sensor:${checkout.id}`]);
    expect(await refs('critical')).toEqual([`sensor:${checkout.id}`]);
    expect(await refs('EU-west')).toEqual([`sensor:${checkout.id}`]);
    expect(await refs('snmp')).toEqual([`sensor:${coreSwitch.id}`]);
    expect(await refs('10.0.0')).toEqual([`sensor:${coreSwitch.id}`]);
    // The site name finds the sensor in it and the site itself.
    expect(await refs('zurich')).toEqual([`sensor:${checkout.id}`, 'site:Zurich-DC']);
  });

  it('sensor: state and time are the live status and the last check', async () => {
    await feed(t, coreSwitch.id, success(), now);
    expect(await ofKind('core switch', 'sensor')).toEqual([
      {
        kind: 'sensor',
        ref: coreSwitch.id,
        title: 'core switch',
        sub: 'snmp · 10.0.0.1',
        state: 'up',
        at: new Date(now).toISOString(),
      },
    ]);
  });

  it('sensor: tags match one by one, never across the stored list', async () => {
    // Stored as ["critical","eu-west"]: the punctuation between tags is not searched.
    expect(await refs('l","e')).toEqual([]);
    expect(await refs('critical eu')).toEqual([]);
  });

  it('sensor: secret options (snmp community, http header values) are never searched', async () => {
    const [row] = await sql<{ options: string }>(t, 'SELECT options FROM sensors WHERE id = ?', [
      coreSwitch.id,
    ]);
    expect(row.options).toContain(COMMUNITY);
    expect(await search(COMMUNITY, admin)).toEqual({ hits: [], truncated: false });
    expect(await search('sekrit', key)).toEqual({ hits: [], truncated: false });
    expect(await search(HEADER_TOKEN, admin)).toEqual({ hits: [], truncated: false });
    expect(await search('Authorization', admin)).toEqual({ hits: [], truncated: false });
    expect(await search('1.3.6.1', admin)).toEqual({ hits: [], truncated: false });
    expect(await search('__stored__', admin)).toEqual({ hits: [], truncated: false });
  });

  it('site: matched on name and kind; ref is the name', async () => {
    expect(await ofKind('berlin', 'site')).toEqual([
      { kind: 'site', ref: 'Berlin lab', title: 'Berlin lab', sub: 'local', state: '', at: null },
    ]);
    expect(await refs('externa')).toEqual(['site:Zurich-DC']);
    expect((await ofKind('local', 'site')).map((h) => h.ref)).toEqual(['Berlin lab']);
  });

  it('channel: matched on name and type; its config (a webhook url) is never searched', async () => {
    const expected = {
      kind: 'channel',
      ref: channelId,
      title: 'Ops pager',
      sub: 'webhook',
      state: 'enabled',
      at: null,
    };
    expect(await search('ops PAG')).toEqual({ hits: [expected], truncated: false });
    expect(await ofKind('webhoo', 'channel')).toEqual([expected]);
    const [row] = await sql<{ config: string }>(t, 'SELECT config FROM channels WHERE id = ?', [channelId]);
    expect(row.config).toContain(HOOK_PATH);
    expect(await search(HOOK_PATH, admin)).toEqual({ hits: [], truncated: false });
    expect(await search('hooks.example.net', admin)).toEqual({ hits: [], truncated: false });
  });

  it('channel: a disabled channel reads disabled, with the time of its last delivery error', async () => {
    await sql(t, 'UPDATE channels SET enabled = ?, last_error_at = ? WHERE id = ?', [
      false,
      now - HOUR,
      channelId,
    ]);
    expect(await ofKind('ops pager', 'channel')).toEqual([
      expect.objectContaining({ state: 'disabled', at: new Date(now - HOUR).toISOString() }),
    ]);
    await sql(t, 'UPDATE channels SET enabled = ?, last_error_at = NULL WHERE id = ?', [true, channelId]);
  });

  it('incident: matched on cause, sensor name and note', async () => {
    const open = {
      kind: 'incident',
      ref: openIncident,
      title: 'Checkout API',
      sub: 'TLS handshake failed',
      state: 'open',
      at: new Date(now - HOUR).toISOString(),
    };
    expect(await search('handshake')).toEqual({ hits: [open], truncated: false });
    expect(await search('renewed the')).toEqual({ hits: [open], truncated: false });
    expect(await refs('dns check')).toEqual([`sensor:${dnsCheck.id}`, `incident:${resolvedIncident}`]);
    expect(await ofKind('nxdomain', 'incident')).toEqual([
      {
        kind: 'incident',
        ref: resolvedIncident,
        title: 'dns check',
        sub: 'NXDOMAIN for example.org',
        state: 'resolved',
        at: new Date(now - 3 * DAY).toISOString(),
      },
    ]);
  });

  it('result: the newest matching message per sensor inside the raw retention window', async () => {
    const window = t.config.retention.raw_seconds * 1000;
    const insert = (sensor: Sensor, ts: number, success: boolean, message: string) =>
      sql(
        t,
        'INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, ?, NULL, 5, ?)',
        [sensor.id, ts, success, message],
      );
    await insert(dnsCheck, now - 2 * HOUR, false, 'resolver timeout (beta)');
    await insert(dnsCheck, now - HOUR, false, 'resolver timeout (alpha)');
    await insert(dnsCheck, now - 10 * MINUTE, true, 'answered in 3 ms');
    await insert(coreSwitch, now - 30 * MINUTE, true, 'Resolver ok');
    await insert(dnsCheck, now - window - 1000, false, 'ancient glitch, RESOLVER gone');
    await insert(coreSwitch, now - window + 1000, false, 'edge glitch');

    expect(await ofKind('resolver', 'result')).toEqual([
      {
        kind: 'result',
        ref: coreSwitch.id,
        title: 'core switch',
        sub: 'Resolver ok',
        state: 'up',
        at: new Date(now - 30 * MINUTE).toISOString(),
      },
      {
        kind: 'result',
        ref: dnsCheck.id,
        title: 'dns check',
        sub: 'resolver timeout (alpha)',
        state: 'down',
        at: new Date(now - HOUR).toISOString(),
      },
    ]);
    // Older than the raw window: not found; just inside it: found.
    expect(await refs('ancient')).toEqual([]);
    expect(await refs('glitch')).toEqual([`result:${coreSwitch.id}`]);
    expect(await refs('(beta)')).toEqual([`result:${dnsCheck.id}`]);
    // Two characters, too short for PostgreSQL's trigram index: matched all the same.
    expect((await ofKind('OK', 'result')).map((hit) => hit.ref)).toEqual([coreSwitch.id]);
  });

  it('user: username and role, shown to administrators and the API key only', async () => {
    const otto = {
      kind: 'user',
      ref: 'otto',
      title: 'otto',
      sub: 'operator',
      state: 'active',
      at: expect.any(String) as unknown,
    };
    expect(await search('OTTO', admin)).toEqual({ hits: [otto], truncated: false });
    expect(await search('otto', key)).toEqual({ hits: [otto], truncated: false });
    expect(await search('otto', operator)).toEqual({ hits: [], truncated: false });
    expect(await search('otto', viewer)).toEqual({ hits: [], truncated: false });
    expect(await refs('operat', admin)).toEqual(['user:otto']);
    expect(await refs('viewer', key)).toEqual(['user:vera']);
    expect(await refs('viewer', viewer)).toEqual([]);
  });

  it('user: a disabled account reads disabled; a never signed-in one has no time', async () => {
    await sql(
      t,
      "INSERT INTO users (username, password_hash, role, disabled, created_at, updated_at) VALUES ('dora', 'x', 'viewer', ?, ?, ?)",
      [true, now, now],
    );
    expect(await ofKind('dora', 'user', admin)).toEqual([
      { kind: 'user', ref: 'dora', title: 'dora', sub: 'viewer', state: 'disabled', at: null },
    ]);
  });

  it('q shorter than 2 characters is an empty answer, not an error; longer than 64 is a 400', async () => {
    expect(await search('c', admin)).toEqual({ hits: [], truncated: false });
    expect(await search('', admin)).toEqual({ hits: [], truncated: false });
    expect(await search(null, admin)).toEqual({ hits: [], truncated: false });
    expect(await refs('ch', admin)).toContain(`sensor:${checkout.id}`);

    const long = await call<{ error: string }>(
      t,
      'GET',
      `/api/search?q=${'x'.repeat(65)}`,
      undefined,
      viewer,
    );
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/\bq\b.*64/);
    expect(await search('x'.repeat(64))).toEqual({ hits: [], truncated: false });
    const name = `${'n'.repeat(60)}-end`;
    const sensor = await createSensor(t, admin, { name, type: 'ping', target: '127.0.0.1' });
    expect(await refs(name)).toEqual([`sensor:${sensor.id}`]);
  });

  it('q is taken as given: not trimmed', async () => {
    expect(await refs(' checkout')).toEqual([]);
    expect(await refs('Checkout API')).toEqual([`sensor:${checkout.id}`, `incident:${openIncident}`]);
    expect(await refs('Checkout API ')).toEqual([]);
  });

  it('q is literal: % and _ are ordinary characters', async () => {
    const percent = await createSensor(t, admin, { name: 'loss 50% probe', type: 'ping', target: 'h1' });
    await createSensor(t, admin, { name: 'loss 500 probe', type: 'ping', target: 'h2' });
    const underscore = await createSensor(t, admin, { name: 'a_b probe', type: 'ping', target: 'h3' });
    await createSensor(t, admin, { name: 'axb probe', type: 'ping', target: 'h4' });
    expect(await refs('50%')).toEqual([`sensor:${percent.id}`]);
    expect(await refs('a_b')).toEqual([`sensor:${underscore.id}`]);
    expect(await refs('%%')).toEqual([]);
    expect(await refs('__')).toEqual([]);
  });

  it('at most 20 hits per kind; truncated says a kind had more', async () => {
    for (let i = 1; i <= 21; i++)
      await sql(
        t,
        "INSERT INTO sensors (name, type, target, sort_order, created_at, updated_at) VALUES (?, 'ping', 'h', ?, ?, ?)",
        [`bulk-${String(i).padStart(2, '0')}`, 1000 + i, now, now],
      );
    const many = await search('bulk-');
    expect(many.truncated).toBe(true);
    expect(many.hits).toHaveLength(20);
    expect(many.hits.map((h) => h.title)).toEqual(
      Array.from({ length: 20 }, (_, i) => `bulk-${String(i + 1).padStart(2, '0')}`),
    );
    // Exactly 20 is not truncated.
    await sql(t, "DELETE FROM sensors WHERE name = 'bulk-21'");
    expect(await search('bulk-')).toMatchObject({ truncated: false, hits: expect.any(Array) as unknown });
    expect((await search('bulk-')).hits).toHaveLength(20);
    // Other kinds still answer alongside a full one.
    await sql(
      t,
      "INSERT INTO sites (name, kind, created_at, updated_at) VALUES ('bulk-site', 'local', ?, ?)",
      [now, now],
    );
    const mixed = await search('bulk-');
    expect(mixed.hits).toHaveLength(21);
    expect(mixed.hits[20]).toMatchObject({ kind: 'site', ref: 'bulk-site' });
  });

  it('an unknown parameter is a 400', async () => {
    expect((await call(t, 'GET', '/api/search?q=checkout&kind=sensor', undefined, viewer)).status).toBe(400);
  });
});
