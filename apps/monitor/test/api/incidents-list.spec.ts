import type { Incident } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import { createSensor, Sensor, sql } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Row {
  sensor: Sensor;
  /** Milliseconds before now. */
  ago: number;
  open?: boolean;
  cause: string;
  note?: string;
}

describe('GET /api/incidents: filters, order and limits; GET /api/sensors/{id}/incidents', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let viewer: Headers;
  let now: number;
  let alpha: Sensor;
  let beta: Sensor;
  let gamma: Sensor;
  /** Incident ids by label. */
  const id: Record<string, number> = {};

  async function insertIncident(row: Row): Promise<number> {
    const startedAt = now - row.ago;
    const [inserted] = await sql<{ id: number }>(
      t,
      `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, note, acknowledged, reconstructed)
       VALUES (?, ?, ?, ?, ?, false, false) RETURNING id`,
      [row.sensor.id, startedAt, row.open ? null : startedAt + MINUTE, row.cause, row.note ?? ''],
    );
    return inserted.id;
  }

  async function list(query: string, headers: Headers = viewer): Promise<Incident[]> {
    const res = await call<Incident[]>(t, 'GET', `/api/incidents${query}`, undefined, headers);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  const ids = async (query: string): Promise<number[]> => (await list(query)).map((i) => i.id);

  async function refused(query: string, parameter: string): Promise<void> {
    const res = await call<{ error: string }>(t, 'GET', `/api/incidents${query}`, undefined, viewer);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(res.body.error).toContain(parameter);
  }

  beforeAll(async () => {
    clock = new MutableClock();
    now = clock.now();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    const sensor = (name: string) =>
      createSensor(t, admin, { name, type: 'http', target: 'http://127.0.0.1:9/' });
    alpha = await sensor('Alpha web');
    beta = await sensor('Beta DB');
    gamma = await sensor('gamma queue');

    // Inserted out of time order on purpose: the list orders by started_at, not by id.
    id.old = await insertIncident({ sensor: gamma, ago: 400 * DAY, cause: 'ancient outage' });
    id.a1 = await insertIncident({ sensor: alpha, ago: 30 * MINUTE, open: true, cause: 'HTTP 503' });
    id.a2 = await insertIncident({
      sensor: alpha,
      ago: 2 * HOUR,
      cause: 'connection refused',
      note: 'Restarted NGINX on host 3',
    });
    id.b1 = await insertIncident({ sensor: beta, ago: 3 * DAY, open: true, cause: 'disk 50% full' });
    id.b2 = await insertIncident({ sensor: beta, ago: 10 * DAY, cause: 'HTTP 500' });
    id.g1 = await insertIncident({ sensor: gamma, ago: 40 * DAY, cause: 'axb timeout' });
    id.g2 = await insertIncident({ sensor: gamma, ago: 100 * DAY, cause: 'a_b mismatch' });
    id.g3 = await insertIncident({ sensor: gamma, ago: 200 * DAY, cause: 'path C:\\data missing' });
  });

  afterAll(async () => {
    await t.close();
  });

  const newestFirst = () => [id.a1, id.a2, id.b1, id.b2, id.g1, id.g2, id.g3, id.old];

  it('without filters: every outage, newest first, in the Incident shape', async () => {
    const all = await list('');
    expect(all.map((i) => i.id)).toEqual(newestFirst());
    expect(all[0]).toEqual({
      id: id.a1,
      sensor_id: alpha.id,
      sensor_name: 'Alpha web',
      started_at: new Date(now - 30 * MINUTE).toISOString(),
      cause: 'HTTP 503',
      acknowledged: false,
      acknowledged_by: null,
      acknowledged_at: null,
      note: '',
      reconstructed: false,
    });
    expect(all[1]).toMatchObject({
      id: id.a2,
      sensor_name: 'Alpha web',
      resolved_at: new Date(now - 2 * HOUR + MINUTE).toISOString(),
      note: 'Restarted NGINX on host 3',
    });
  });

  it('equal start times are ordered by id, newest first', async () => {
    const first = await insertIncident({ sensor: beta, ago: 5 * DAY, cause: 'same start' });
    const second = await insertIncident({ sensor: gamma, ago: 5 * DAY, cause: 'same start' });
    expect(await ids('?q=same%20start')).toEqual([second, first]);
    await sql(t, 'DELETE FROM incidents WHERE id IN (?, ?)', [first, second]);
  });

  it('requires authentication; a viewer may read', async () => {
    expect((await call(t, 'GET', '/api/incidents')).status).toBe(401);
    expect((await call(t, 'GET', '/api/incidents', undefined, viewer)).status).toBe(200);
  });

  it('state: all (default), open, resolved; anything else is a 400 naming state', async () => {
    expect(await ids('?state=all')).toEqual(newestFirst());
    expect(await ids('?state=open')).toEqual([id.a1, id.b1]);
    expect(await ids('?state=resolved')).toEqual([id.a2, id.b2, id.g1, id.g2, id.g3, id.old]);
    await refused('?state=bogus', 'state');
    await refused('?state=', 'state');
    await refused('?state=OPEN', 'state');
  });

  it('open=1 is the older spelling of state=open; any other value is a 400 naming open', async () => {
    expect(await ids('?open=1')).toEqual([id.a1, id.b1]);
    expect(await ids('?open=1&state=open')).toEqual([id.a1, id.b1]);
    expect(await ids('?open=1&state=all')).toEqual([id.a1, id.b1]);
    // The filters combine: open and resolved at once is nothing.
    expect(await ids('?open=1&state=resolved')).toEqual([]);
    await refused('?open=0', 'open');
    await refused('?open=true', 'open');
    await refused('?open=', 'open');
  });

  it('sensor: one sensor; an unknown id is an empty list; a non-integer is a 400 naming sensor', async () => {
    expect(await ids(`?sensor=${alpha.id}`)).toEqual([id.a1, id.a2]);
    expect(await ids(`?sensor=${beta.id}`)).toEqual([id.b1, id.b2]);
    expect(await ids('?sensor=999999')).toEqual([]);
    await refused('?sensor=abc', 'sensor');
    await refused('?sensor=1.5', 'sensor');
    await refused('?sensor=', 'sensor');
  });

  it('range: outages that started inside the window ending now; all has no lower bound', async () => {
    expect(await ids('?range=1h')).toEqual([id.a1]);
    expect(await ids('?range=24h')).toEqual([id.a1, id.a2]);
    expect(await ids('?range=7d')).toEqual([id.a1, id.a2, id.b1]);
    expect(await ids('?range=30d')).toEqual([id.a1, id.a2, id.b1, id.b2]);
    expect(await ids('?range=90d')).toEqual([id.a1, id.a2, id.b1, id.b2, id.g1]);
    expect(await ids('?range=1y')).toEqual([id.a1, id.a2, id.b1, id.b2, id.g1, id.g2, id.g3]);
    expect(await ids('?range=all')).toEqual(newestFirst());
    await refused('?range=2d', 'range');
    await refused('?range=', 'range');
  });

  it('range: the lower bound is inclusive and the window ends now', async () => {
    const edge = await insertIncident({ sensor: beta, ago: HOUR, cause: 'edge' });
    const early = await insertIncident({ sensor: beta, ago: HOUR + 1, cause: 'edge' });
    const future = await insertIncident({ sensor: beta, ago: -MINUTE, cause: 'edge' });
    expect(await ids('?range=1h&q=edge')).toEqual([edge]);
    expect(await ids('?range=all&q=edge')).toEqual([edge, early]);
    expect(await ids('?q=edge')).toEqual([future, edge, early]);
    await sql(t, 'DELETE FROM incidents WHERE id IN (?, ?, ?)', [edge, early, future]);
  });

  it('since: outages that started at or after the moment; an invalid one is a 400 naming since', async () => {
    const fiveDaysAgo = new Date(now - 5 * DAY).toISOString();
    expect(await ids(`?since=${fiveDaysAgo}`)).toEqual([id.a1, id.a2, id.b1]);
    // Inclusive, and with an offset: the same moment as alpha's second outage.
    const a2Start = now - 2 * HOUR;
    const withOffset = new Date(a2Start + 2 * HOUR).toISOString().replace('Z', '+02:00');
    expect(await ids(`?since=${encodeURIComponent(withOffset)}`)).toEqual([id.a1, id.a2]);
    expect(await ids(`?since=${new Date(a2Start + 1).toISOString()}`)).toEqual([id.a1]);
    await refused('?since=yesterday', 'since');
    await refused('?since=2026-02-30T00:00:00Z', 'since');
    await refused('?since=2026-11-01', 'since');
    await refused('?since=', 'since');
  });

  it('since is ignored entirely when range is given, even when invalid', async () => {
    expect(await ids('?range=24h&since=not-a-time')).toEqual([id.a1, id.a2]);
    expect(await ids(`?range=1h&since=${new Date(now - 5 * DAY).toISOString()}`)).toEqual([id.a1]);
    expect(await ids(`?range=all&since=${new Date(now - HOUR).toISOString()}`)).toEqual(newestFirst());
  });

  it('q: case-insensitive substring of the cause, the sensor name or the note', async () => {
    expect(await ids('?q=http%2050')).toEqual([id.a1, id.b2]);
    expect(await ids('?q=REFUSED')).toEqual([id.a2]);
    expect(await ids('?q=beta%20db')).toEqual([id.b1, id.b2]);
    expect(await ids('?q=nginx')).toEqual([id.a2]);
    expect(await ids('?q=no-such-text')).toEqual([]);
    // An empty q filters nothing.
    expect(await ids('?q=')).toEqual(newestFirst());
  });

  it('q is literal: % and _ and backslash are ordinary characters', async () => {
    expect(await ids('?q=50%25')).toEqual([id.b1]);
    expect(await ids('?q=%25')).toEqual([id.b1]);
    expect(await ids('?q=a_b')).toEqual([id.g2]);
    expect(await ids('?q=_')).toEqual([id.g2]);
    expect(await ids(`?q=${encodeURIComponent('C:\\data')}`)).toEqual([id.g3]);
    expect(await ids(`?q=${encodeURIComponent('\\')}`)).toEqual([id.g3]);
    expect(await ids(`?q=${encodeURIComponent('C:data')}`)).toEqual([]);
  });

  it('the filters combine', async () => {
    expect(await ids(`?state=resolved&sensor=${beta.id}&range=30d`)).toEqual([id.b2]);
    expect(await ids(`?state=resolved&sensor=${beta.id}&range=7d`)).toEqual([]);
    expect(await ids('?q=http&state=open')).toEqual([id.a1]);
    expect(await ids('?q=beta&range=7d&open=1')).toEqual([id.b1]);
    expect(await ids(`?sensor=${gamma.id}&since=${new Date(now - 150 * DAY).toISOString()}`)).toEqual([
      id.g1,
      id.g2,
    ]);
    expect(await ids(`?sensor=${gamma.id}&q=a_b&state=resolved&range=1y&limit=5`)).toEqual([id.g2]);
    expect(await ids(`?sensor=${alpha.id}&q=beta`)).toEqual([]);
  });

  it('limit: 1 to 1000; out of range or not an integer is a 400 naming limit', async () => {
    expect(await ids('?limit=2')).toEqual([id.a1, id.a2]);
    expect(await ids('?limit=1')).toEqual([id.a1]);
    expect(await ids('?limit=1000')).toEqual(newestFirst());
    await refused('?limit=0', 'limit');
    await refused('?limit=1001', 'limit');
    await refused('?limit=-1', 'limit');
    await refused('?limit=abc', 'limit');
    await refused('?limit=2.5', 'limit');
    await refused('?limit=', 'limit');
  });

  it('an unknown parameter is a 400 naming it', async () => {
    await refused('?status=open', 'status');
  });

  it('GET /api/sensors/{id}/incidents: that sensor only, newest first, with limit', async () => {
    const res = await call<Incident[]>(t, 'GET', `/api/sensors/${alpha.id}/incidents`, undefined, viewer);
    expect(res.status).toBe(200);
    expect(res.body.map((i) => i.id)).toEqual([id.a1, id.a2]);
    expect(res.body.every((i) => i.sensor_id === alpha.id && i.sensor_name === 'Alpha web')).toBe(true);
    const one = await call<Incident[]>(
      t,
      'GET',
      `/api/sensors/${gamma.id}/incidents?limit=1`,
      undefined,
      viewer,
    );
    expect(one.body.map((i) => i.id)).toEqual([id.g1]);
    const bad = await call<{ error: string }>(
      t,
      'GET',
      `/api/sensors/${gamma.id}/incidents?limit=0`,
      undefined,
      viewer,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('limit');
    expect(
      (await call(t, 'GET', `/api/sensors/${gamma.id}/incidents?state=open`, undefined, viewer)).status,
    ).toBe(400);
  });

  it('GET /api/sensors/{id}/incidents: an unknown sensor is a 404; a sensor without outages an empty list', async () => {
    const missing = await call<{ error: string }>(
      t,
      'GET',
      '/api/sensors/999999/incidents',
      undefined,
      viewer,
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'no sensor with id 999999' });
    expect((await call(t, 'GET', '/api/sensors/abc/incidents', undefined, viewer)).status).toBe(400);
    expect((await call(t, 'GET', `/api/sensors/${alpha.id}/incidents`)).status).toBe(401);
    const quiet = await createSensor(t, admin, {
      name: 'quiet',
      type: 'http',
      target: 'http://127.0.0.1:9/',
    });
    const res = await call<Incident[]>(t, 'GET', `/api/sensors/${quiet.id}/incidents`, undefined, viewer);
    expect(res).toMatchObject({ status: 200, body: [] });
  });

  it('limit defaults to 50, on both endpoints', async () => {
    const bulk = await createSensor(t, admin, { name: 'bulk', type: 'http', target: 'http://127.0.0.1:9/' });
    for (let i = 0; i < 60; i++)
      await insertIncident({ sensor: bulk, ago: 500 * DAY + i * MINUTE, cause: `bulk ${i}` });
    const all = await list('');
    expect(all).toHaveLength(50);
    expect(all.slice(0, 8).map((i) => i.id)).toEqual(newestFirst());
    expect(await list('?limit=1000')).toHaveLength(68);
    const perSensor = await call<Incident[]>(
      t,
      'GET',
      `/api/sensors/${bulk.id}/incidents`,
      undefined,
      viewer,
    );
    expect(perSensor.body).toHaveLength(50);
    expect(perSensor.body[0].cause).toBe('bulk 0');
    expect(perSensor.body[49].cause).toBe('bulk 49');
  });
});
