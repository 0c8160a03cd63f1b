import { MutableClock } from './support/clock';
import { accountWithRole, call, Headers, setupAdmin } from './support/http';
import {
  boolOf,
  createSensor,
  failure,
  feed,
  getSensor,
  incidentRows,
  MaintenanceWindow,
  record,
  Recorder,
  moveTo,
  schedulerTick,
  Sensor,
  sql,
  success,
} from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const iso = (ms: number) => new Date(ms).toISOString();

const sensorBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'http',
  target: 'http://127.0.0.1:9/',
  interval: 30,
  retries: 2,
  reminder_every: 60,
  ...extra,
});

describe('maintenance windows: the API', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;
  let sensors: Sensor[];

  const window = (extra: Record<string, unknown> = {}) => ({
    name: 'firmware',
    starts_at: iso(clock.now() + 60 * MINUTE),
    ends_at: iso(clock.now() + 120 * MINUTE),
    sensors: [sensors[1].id, sensors[0].id],
    ...extra,
  });
  const list = async () =>
    (await call<MaintenanceWindow[]>(t, 'GET', '/api/maintenance', undefined, viewer)).body;

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    sensors = [await createSensor(t, admin, sensorBody('a')), await createSensor(t, admin, sensorBody('b'))];
  });

  afterAll(async () => {
    await t.close();
  });

  it('GET /api/maintenance (viewer) answers an empty array at first', async () => {
    const res = await call(t, 'GET', '/api/maintenance', undefined, viewer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('POST creates a window: 201 with it, listed afterwards', async () => {
    const body = window();
    const res = await call<MaintenanceWindow>(t, 'POST', '/api/maintenance', body, admin);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'firmware',
      starts_at: body.starts_at,
      ends_at: body.ends_at,
      sensors: [sensors[0].id, sensors[1].id],
      all_sensors: false,
      managed_by: null,
    });
    expect(await list()).toEqual([res.body]);
  });

  it('an empty sensors array means every sensor', async () => {
    const res = await call<MaintenanceWindow>(
      t,
      'POST',
      '/api/maintenance',
      window({ name: 'everything', sensors: [] }),
      admin,
    );
    expect(res.status).toBe(201);
    expect(res.body.sensors).toEqual([]);
    expect(res.body.all_sensors).toBe(true);
    const stored = await sql<{ all_sensors: unknown }>(
      t,
      'SELECT all_sensors FROM maintenance_windows WHERE id = ?',
      [res.body.id],
    );
    expect(stored.map((row) => ({ all_sensors: boolOf(row.all_sensors) }))).toEqual([{ all_sensors: true }]);
    expect((await call(t, 'DELETE', `/api/maintenance/${res.body.id}`, undefined, admin)).status).toBe(200);
  });

  it.each<[string, Record<string, unknown>]>([
    ['starts_at equal to ends_at', { starts_at: '2026-11-22T10:00:00Z', ends_at: '2026-11-22T10:00:00Z' }],
    ['starts_at after ends_at', { starts_at: '2026-11-22T11:00:00Z', ends_at: '2026-11-22T10:00:00Z' }],
    ['starts_at not a timestamp', { starts_at: 'tomorrow' }],
    ['ends_at not a timestamp', { ends_at: '2026-13-45T99:00:00Z' }],
    ['starts_at a number', { starts_at: 1_790_000_000_000 }],
    ['ends_at empty', { ends_at: '' }],
    ['an unknown sensor id', { sensors: [999_999] }],
    ['sensors not ids', { sensors: ['a'] }],
    ['no sensors field', { sensors: undefined }],
    ['no name', { name: undefined }],
    ['an unknown field', { x: 1 }],
  ])('%s is a 400 and stores nothing', async (_name, change) => {
    const before = await list();
    const res = await call<{ error: string }>(t, 'POST', '/api/maintenance', window(change), admin);
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
    expect(await list()).toEqual(before);
  });

  it('the 400 for an inverted window names the rule', async () => {
    const res = await call<{ error: string }>(
      t,
      'POST',
      '/api/maintenance',
      window({ starts_at: '2026-11-22T11:00:00Z', ends_at: '2026-11-22T10:00:00Z' }),
      admin,
    );
    expect(res.body.error).toMatch(/starts_at/);
  });

  it.each([
    ['a viewer', () => viewer],
    ['an operator', () => operator],
  ])('%s cannot create or delete (403)', async (_role, headers) => {
    const [existing] = await list();
    expect((await call(t, 'POST', '/api/maintenance', window(), headers())).status).toBe(403);
    expect((await call(t, 'DELETE', `/api/maintenance/${existing.id}`, undefined, headers())).status).toBe(
      403,
    );
    expect(await list()).toHaveLength(1);
  });

  it('an operator may read the list', async () => {
    const res = await call(t, 'GET', '/api/maintenance', undefined, operator);
    expect(res.status).toBe(200);
  });

  it('DELETE (admin) removes a window: 200, then 404', async () => {
    const [existing] = await list();
    const res = await call(t, 'DELETE', `/api/maintenance/${existing.id}`, undefined, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await list()).toEqual([]);
    expect((await call(t, 'DELETE', `/api/maintenance/${existing.id}`, undefined, admin)).status).toBe(404);
    expect((await call(t, 'DELETE', '/api/maintenance/999999', undefined, admin)).status).toBe(404);
    expect((await call(t, 'DELETE', '/api/maintenance/abc', undefined, admin)).status).toBe(400);
  });

  it('deleting a listed sensor leaves the window covering the others, never every sensor', async () => {
    const res = await call<MaintenanceWindow>(t, 'POST', '/api/maintenance', window(), admin);
    expect((await call(t, 'DELETE', `/api/sensors/${sensors[0].id}`, undefined, admin)).status).toBe(200);
    // The stored link went with the sensor…
    expect(
      await sql(t, 'SELECT sensor_id FROM maintenance_window_sensors WHERE window_id = ?', [res.body.id]),
    ).toEqual([{ sensor_id: sensors[1].id }]);
    // …and the API must not list the deleted sensor either.
    const after = (await list()).find((w) => w.id === res.body.id);
    expect(after?.sensors).toEqual([sensors[1].id]);
  });
});

describe('maintenance windows: behaviour', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let alerts: Recorder<'alert'>;

  const kindsOf = (id: number) => alerts.events.filter((a) => a.sensor.id === id).map((a) => a.kind);
  const createWindow = async (name: string, startsAt: number, endsAt: number, sensors: number[]) => {
    const res = await call<MaintenanceWindow>(
      t,
      'POST',
      '/api/maintenance',
      { name, starts_at: iso(startsAt), ends_at: iso(endsAt), sensors },
      admin,
    );
    if (res.status !== 201) throw new Error(`window: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** One probe interval later, a failure. */
  const failNext = async (id: number) => {
    clock.advance(30 * SECOND);
    await feed(t, id, failure(), clock.now());
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    alerts = record(t, 'alert');
  });

  afterAll(async () => {
    alerts.stop();
    await t.close();
  });

  it('inside an active window, failures reaching retries set down but open no incident and send no alert', async () => {
    const covered = await createSensor(t, admin, sensorBody('covered'));
    const outside = await createSensor(t, admin, sensorBody('outside'));
    const win = await createWindow('patching', clock.now() - MINUTE, clock.now() + 10 * MINUTE, [covered.id]);

    for (let i = 0; i < 3; i++) {
      await failNext(covered.id);
      await feed(t, outside.id, failure(), clock.now());
    }
    expect(await getSensor(t, admin, covered.id)).toMatchObject({
      status: 'down',
      streak: 3,
      incident_id: null,
    });
    expect(await incidentRows(t, covered.id)).toEqual([]);
    expect(kindsOf(covered.id)).toEqual([]);
    // The window covers only the sensors it lists.
    expect((await getSensor(t, admin, outside.id)).incident_id).toEqual(expect.any(Number));
    expect(kindsOf(outside.id)).toEqual(['down']);

    // No reminders inside the window either.
    clock.advance(2 * MINUTE);
    await schedulerTick(t);
    expect(kindsOf(covered.id)).toEqual([]);

    // After the window ends, the next failure opens an incident dated after the window.
    moveTo(clock, Date.parse(win.ends_at) + 5 * SECOND);
    await failNext(covered.id);
    const after = await getSensor(t, admin, covered.id);
    expect(after.status).toBe('down');
    expect(after.incident_id).toEqual(expect.any(Number));
    const rows = await incidentRows(t, covered.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].started_at).toBeGreaterThanOrEqual(Date.parse(win.ends_at));
    expect(kindsOf(covered.id)).toEqual(['down']);
  });

  it('a window that begins while an outage is open closes it on the next tick with a note and no alert', async () => {
    const sensor = await createSensor(t, admin, sensorBody('outage then window'));
    await failNext(sensor.id);
    await failNext(sensor.id);
    const down = await getSensor(t, admin, sensor.id);
    const openId = down.incident_id as number;
    expect(openId).toEqual(expect.any(Number));
    expect(kindsOf(sensor.id)).toEqual(['down']);

    const startsAt = clock.now() + 30 * SECOND;
    const endsAt = startsAt + 10 * MINUTE;
    await createWindow('router swap', startsAt, endsAt, [sensor.id]);

    // Before it begins, nothing happens.
    await schedulerTick(t);
    expect((await getSensor(t, admin, sensor.id)).incident_id).toBe(openId);

    moveTo(clock, startsAt);
    await schedulerTick(t);
    const closed = await getSensor(t, admin, sensor.id);
    expect(closed.incident_id).toBeNull();
    const [row] = await incidentRows(t, sensor.id);
    expect(row).toMatchObject({ id: openId, resolved_at: startsAt });
    expect(row.note.startsWith('closed by maintenance window')).toBe(true);
    expect(kindsOf(sensor.id)).toEqual(['down']);

    // Failures inside the window open nothing, and a later tick does not close anything again.
    await failNext(sensor.id);
    await failNext(sensor.id);
    clock.advance(2 * MINUTE);
    await schedulerTick(t);
    expect(await incidentRows(t, sensor.id)).toHaveLength(1);
    expect(kindsOf(sensor.id)).toEqual(['down']);

    // After the window: a new outage, dated after it.
    moveTo(clock, endsAt);
    await failNext(sensor.id);
    const rows = await incidentRows(t, sensor.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ resolved_at: null });
    expect(rows[1].started_at).toBeGreaterThanOrEqual(endsAt);
    expect((await getSensor(t, admin, sensor.id)).incident_id).toBe(rows[1].id);
    expect(kindsOf(sensor.id)).toEqual(['down', 'down']);
  });

  it('a window that begins while an acknowledged outage is open also closes it, keeping the note', async () => {
    const sensor = await createSensor(t, admin, sensorBody('acked then window'));
    await failNext(sensor.id);
    await failNext(sensor.id);
    const ack = await call(t, 'POST', `/api/sensors/${sensor.id}/ack`, { note: 'known' }, admin);
    expect(ack.status).toBe(200);
    const startsAt = clock.now() + SECOND;
    await createWindow('late window', startsAt, startsAt + 5 * MINUTE, [sensor.id]);
    moveTo(clock, startsAt);
    await schedulerTick(t);
    const [row] = await incidentRows(t, sensor.id);
    expect(row.resolved_at).toBe(startsAt);
    expect(row.note).toContain('known');
    expect(row.note).toContain('closed by maintenance window');
    expect(kindsOf(sensor.id)).toEqual(['down']);
  });

  it('a window with no sensors listed covers every sensor, also one created later; deleting it ends it', async () => {
    const win = await createWindow('all hands', clock.now() - MINUTE, clock.now() + 60 * MINUTE, []);
    const late = await createSensor(t, admin, sensorBody('created during the window'));
    await failNext(late.id);
    await failNext(late.id);
    expect(await getSensor(t, admin, late.id)).toMatchObject({ status: 'down', incident_id: null });
    expect(kindsOf(late.id)).toEqual([]);

    expect((await call(t, 'DELETE', `/api/maintenance/${win.id}`, undefined, admin)).status).toBe(200);
    await failNext(late.id);
    expect((await getSensor(t, admin, late.id)).incident_id).toEqual(expect.any(Number));
    expect(kindsOf(late.id)).toEqual(['down']);
  });
});

describe('parent sensors', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let alerts: Recorder<'alert'>;
  let parent: Sensor;
  let child: Sensor;

  const kindsOf = (id: number) => alerts.events.filter((a) => a.sensor.id === id).map((a) => a.kind);
  const next = async (id: number, ok: boolean) => {
    clock.advance(30 * SECOND);
    await feed(t, id, ok ? success() : failure(), clock.now());
  };

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    alerts = record(t, 'alert');
    parent = await createSensor(t, admin, sensorBody('router', { retries: 1 }));
    child = await createSensor(
      t,
      admin,
      sensorBody('server behind router', { retries: 1, parent_id: parent.id }),
    );
  });

  afterAll(async () => {
    alerts.stop();
    await t.close();
  });

  it('a child fails while its parent is up: it opens its own incident', async () => {
    const sibling = await createSensor(t, admin, sensorBody('sibling', { retries: 1, parent_id: parent.id }));
    await next(parent.id, true);
    await next(sibling.id, false);
    expect((await getSensor(t, admin, sibling.id)).incident_id).toEqual(expect.any(Number));
    expect(kindsOf(sibling.id)).toEqual(['down']);
  });

  it('while the parent is down, the failing child is excused: down, no incident, no alert', async () => {
    await next(parent.id, false);
    expect((await getSensor(t, admin, parent.id)).status).toBe('down');
    expect(kindsOf(parent.id)).toEqual(['down']);

    await next(child.id, false);
    await next(child.id, false);
    expect(await getSensor(t, admin, child.id)).toMatchObject({ status: 'down', incident_id: null });
    expect(await incidentRows(t, child.id)).toEqual([]);
    expect(kindsOf(child.id)).toEqual([]);
  });

  it('once the parent is up again, the child’s next failure opens an incident', async () => {
    await next(parent.id, true);
    expect((await getSensor(t, admin, parent.id)).status).toBe('up');
    expect(kindsOf(parent.id)).toEqual(['down', 'up']);

    await next(child.id, false);
    const after = await getSensor(t, admin, child.id);
    expect(after.status).toBe('down');
    expect(after.incident_id).toEqual(expect.any(Number));
    const rows = await incidentRows(t, child.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].started_at).toBe(clock.now());
    expect(kindsOf(child.id)).toEqual(['down']);
  });

  it('a grandchild is excused while its own parent is down, and not once that parent is up', async () => {
    const grandchild = await createSensor(
      t,
      admin,
      sensorBody('app on server', { retries: 1, parent_id: child.id }),
    );
    // The child (its parent) is down: excused.
    await next(grandchild.id, false);
    expect(await getSensor(t, admin, grandchild.id)).toMatchObject({ status: 'down', incident_id: null });
    expect(kindsOf(grandchild.id)).toEqual([]);
    await next(child.id, true);
    await next(grandchild.id, false);
    expect((await getSensor(t, admin, grandchild.id)).incident_id).toEqual(expect.any(Number));
    expect(kindsOf(grandchild.id)).toEqual(['down']);
  });
});
