import type { Incident } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import {
  createSensor,
  failure,
  feed,
  getSensor,
  incidentRows,
  record,
  Recorder,
  runtimeTick,
  Sensor,
  success,
} from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const SECOND = 1000;

describe('incidents: opening, acknowledgement, reminders and recovery', () => {
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let operator: Headers;
  let viewer: Headers;
  let key: Headers;
  let alerts: Recorder<'alert'>;
  let sensor: Sensor;
  let incidentId: number;
  let startedAt: number;

  const alertsOf = (id: number) => alerts.events.filter((a) => a.sensor.id === id);
  const kindsOf = (id: number) => alertsOf(id).map((a) => a.kind);

  /** Drives a fresh sensor (retries 2) down: two failures one probe interval apart. */
  async function downSensor(name: string, reminderEvery = 60): Promise<Sensor> {
    const created = await createSensor(t, admin, {
      name,
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 30,
      retries: 2,
      reminder_every: reminderEvery,
    });
    await feed(t, created.id, failure('HTTP 500'), clock.now());
    clock.advance(30 * SECOND);
    await feed(t, created.id, failure('HTTP 503'), clock.now());
    return getSensor(t, admin, created.id);
  }

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
    operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
    key = await apiKeyHeaders(t, admin);
    alerts = record(t, 'alert');
  });

  afterAll(async () => {
    alerts.stop();
    await t.close();
  });

  it('the first failure is warn without an incident or an alert', async () => {
    sensor = await createSensor(t, admin, {
      name: 'api',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 30,
      retries: 2,
      reminder_every: 60,
    });
    await feed(t, sensor.id, failure('HTTP 500'), clock.now());
    expect(await getSensor(t, admin, sensor.id)).toMatchObject({
      status: 'warn',
      streak: 1,
      incident_id: null,
    });
    expect(await incidentRows(t, sensor.id)).toEqual([]);
    expect(alertsOf(sensor.id)).toEqual([]);
  });

  it('the failure that reaches retries opens an incident and sends exactly one down alert', async () => {
    clock.advance(30 * SECOND);
    startedAt = clock.now();
    await feed(t, sensor.id, failure('HTTP 503'), startedAt);
    const down = await getSensor(t, viewer, sensor.id);
    expect(down).toMatchObject({ status: 'down', streak: 2 });
    expect(down.incident_id).toEqual(expect.any(Number));
    incidentId = down.incident_id as number;

    const rows = await incidentRows(t, sensor.id);
    expect(rows).toEqual([
      expect.objectContaining({
        id: incidentId,
        started_at: startedAt,
        resolved_at: null,
        cause: 'HTTP 503',
      }),
    ]);
    expect(kindsOf(sensor.id)).toEqual(['down']);
    const [alert] = alertsOf(sensor.id);
    expect(alert).toMatchObject({
      kind: 'down',
      at: startedAt,
      downSince: startedAt,
      downForMs: 0,
      sensor: { id: sensor.id, name: 'api', status: 'down' },
      incident: { id: incidentId, started_at: new Date(startedAt).toISOString(), cause: 'HTTP 503' },
    });
    expect(alert.incident?.resolved_at).toBeUndefined();
  });

  it('further failures send nothing more', async () => {
    clock.advance(30 * SECOND);
    await feed(t, sensor.id, failure('HTTP 503'), clock.now());
    expect(await getSensor(t, admin, sensor.id)).toMatchObject({ status: 'down', incident_id: incidentId });
    expect(kindsOf(sensor.id)).toEqual(['down']);
    expect(await incidentRows(t, sensor.id)).toHaveLength(1);
  });

  it('a viewer cannot acknowledge (403), through either endpoint', async () => {
    expect((await call(t, 'POST', `/api/sensors/${sensor.id}/ack`, { note: 'x' }, viewer)).status).toBe(403);
    expect((await call(t, 'POST', `/api/incidents/${incidentId}/ack`, {}, viewer)).status).toBe(403);
    expect((await call(t, 'DELETE', `/api/incidents/${incidentId}/ack`, undefined, viewer)).status).toBe(403);
    expect((await incidentRows(t, sensor.id))[0]).toMatchObject({
      acknowledged: false,
      acknowledged_by: null,
    });
  });

  it('POST /api/sensors/{id}/ack acknowledges the open incident with the username and the note', async () => {
    const res = await call<Incident>(
      t,
      'POST',
      `/api/sensors/${sensor.id}/ack`,
      { note: 'looking into it' },
      admin,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: incidentId,
      sensor_id: sensor.id,
      sensor_name: 'api',
      started_at: new Date(startedAt).toISOString(),
      cause: 'HTTP 503',
      acknowledged: true,
      acknowledged_by: 'admin',
      acknowledged_at: new Date(clock.now()).toISOString(),
      note: 'looking into it',
      reconstructed: false,
    });
    expect((await incidentRows(t, sensor.id))[0]).toMatchObject({
      acknowledged: true,
      acknowledged_by: 'admin',
      note: 'looking into it',
    });
    // Acknowledging changes neither status nor the open incident.
    expect(await getSensor(t, admin, sensor.id)).toMatchObject({ status: 'down', incident_id: incidentId });
  });

  it('an operator may acknowledge, and is recorded by username', async () => {
    const res = await call<Incident>(t, 'POST', `/api/incidents/${incidentId}/ack`, {}, operator);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ acknowledged: true, acknowledged_by: 'otto' });
    // A note left out keeps the one already written.
    expect(res.body.note).toBe('looking into it');
  });

  it('acknowledging with the API key records `api`', async () => {
    const res = await call<Incident>(
      t,
      'POST',
      `/api/incidents/${incidentId}/ack`,
      { note: 'scripted ack' },
      key,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: incidentId,
      acknowledged: true,
      acknowledged_by: 'api',
      note: 'scripted ack',
    });
  });

  it('no reminder is sent while the incident is acknowledged', async () => {
    clock.advance(61 * SECOND);
    await runtimeTick(t);
    clock.advance(61 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(sensor.id)).toEqual(['down']);
  });

  it('DELETE /api/incidents/{id}/ack takes it back and the next tick sends a reminder at once', async () => {
    const res = await call<Incident>(t, 'DELETE', `/api/incidents/${incidentId}/ack`, undefined, operator);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: incidentId,
      acknowledged: false,
      acknowledged_by: null,
      acknowledged_at: null,
    });
    expect(kindsOf(sensor.id)).toEqual(['down']);
    await runtimeTick(t);
    expect(kindsOf(sensor.id)).toEqual(['down', 'reminder']);
    const reminder = alertsOf(sensor.id)[1];
    expect(reminder).toMatchObject({
      kind: 'reminder',
      at: clock.now(),
      downSince: startedAt,
      downForMs: clock.now() - startedAt,
      sensor: { id: sensor.id, status: 'down' },
    });
  });

  it('the reminder alert event carries the open incident (the webhook body has it for reminders)', () => {
    const reminder = alertsOf(sensor.id).find((a) => a.kind === 'reminder');
    expect(reminder?.incident).toMatchObject({
      id: incidentId,
      started_at: new Date(startedAt).toISOString(),
      cause: 'HTTP 503',
    });
  });

  it('reminders then follow every reminder_every seconds, counted from the last alert', async () => {
    await runtimeTick(t);
    clock.advance(59 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(sensor.id)).toEqual(['down', 'reminder']);
    clock.advance(1 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(sensor.id)).toEqual(['down', 'reminder', 'reminder']);
  });

  it('acknowledging an unknown incident is a 404, in both directions', async () => {
    expect((await call(t, 'POST', '/api/incidents/999999/ack', {}, operator)).status).toBe(404);
    expect((await call(t, 'DELETE', '/api/incidents/999999/ack', undefined, operator)).status).toBe(404);
    expect((await call(t, 'POST', '/api/sensors/999999/ack', {}, operator)).status).toBe(404);
  });

  it('acknowledging a sensor with nothing open is a 409', async () => {
    const quiet = await createSensor(t, admin, {
      name: 'quiet',
      type: 'http',
      target: 'http://127.0.0.1:9/',
    });
    const res = await call<{ error: string }>(t, 'POST', `/api/sensors/${quiet.id}/ack`, {}, operator);
    expect(res.status).toBe(409);
    expect(typeof res.body.error).toBe('string');
    await feed(t, quiet.id, failure(), clock.now());
    expect((await getSensor(t, admin, quiet.id)).status).toBe('warn');
    expect((await call(t, 'POST', `/api/sensors/${quiet.id}/ack`, {}, operator)).status).toBe(409);
  });

  it('recovery closes the incident and sends an up alert naming the outage length, even when acknowledged', async () => {
    const ack = await call<Incident>(
      t,
      'POST',
      `/api/sensors/${sensor.id}/ack`,
      { note: 'fixing' },
      operator,
    );
    expect(ack.status).toBe(200);
    clock.advance(45 * SECOND);
    const recoveredAt = clock.now();
    await feed(t, sensor.id, success(), recoveredAt);

    expect(await getSensor(t, admin, sensor.id)).toMatchObject({
      status: 'up',
      streak: 0,
      incident_id: null,
    });
    const [row] = await incidentRows(t, sensor.id);
    expect(row).toMatchObject({ id: incidentId, started_at: startedAt, resolved_at: recoveredAt });
    const up = alertsOf(sensor.id).filter((a) => a.kind === 'up');
    expect(up).toHaveLength(1);
    expect(up[0]).toMatchObject({
      kind: 'up',
      at: recoveredAt,
      downSince: startedAt,
      downForMs: recoveredAt - startedAt,
      sensor: { id: sensor.id, status: 'up' },
      incident: { id: incidentId, resolved_at: new Date(recoveredAt).toISOString() },
    });
    expect(kindsOf(sensor.id)).toEqual(['down', 'reminder', 'reminder', 'up']);
  });

  it('the resolved incident cannot be acknowledged or un-acknowledged (409); the sensor has nothing open (409)', async () => {
    expect((await call(t, 'POST', `/api/incidents/${incidentId}/ack`, {}, operator)).status).toBe(409);
    expect((await call(t, 'DELETE', `/api/incidents/${incidentId}/ack`, undefined, operator)).status).toBe(
      409,
    );
    expect((await call(t, 'POST', `/api/sensors/${sensor.id}/ack`, {}, operator)).status).toBe(409);
  });

  it('no reminder follows a recovery', async () => {
    clock.advance(600 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(sensor.id)).toEqual(['down', 'reminder', 'reminder', 'up']);
  });

  it('pausing a down sensor closes its incident without an up alert, and it cannot be acknowledged', async () => {
    const paused = await downSensor('paused while down');
    expect(paused).toMatchObject({ status: 'down' });
    const openId = paused.incident_id as number;
    expect(openId).toEqual(expect.any(Number));
    expect(kindsOf(paused.id)).toEqual(['down']);

    const patch = await call<Sensor>(t, 'PATCH', `/api/sensors/${paused.id}`, { enabled: false }, operator);
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ status: 'paused', incident_id: null });
    const [row] = await incidentRows(t, paused.id);
    expect(row).toMatchObject({ id: openId, resolved_at: clock.now() });
    expect(kindsOf(paused.id)).toEqual(['down']);

    expect((await call(t, 'POST', `/api/sensors/${paused.id}/ack`, {}, operator)).status).toBe(409);
    expect((await call(t, 'POST', `/api/incidents/${openId}/ack`, {}, operator)).status).toBe(409);

    // No reminder for a paused sensor either.
    clock.advance(120 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(paused.id)).toEqual(['down']);
  });

  it('acknowledgement belongs to the incident: a new outage starts unacknowledged and reminds again', async () => {
    const flappy = await downSensor('flappy');
    const first = flappy.incident_id as number;
    expect((await call(t, 'POST', `/api/sensors/${flappy.id}/ack`, {}, operator)).status).toBe(200);
    clock.advance(30 * SECOND);
    await feed(t, flappy.id, success(), clock.now());
    clock.advance(30 * SECOND);
    await feed(t, flappy.id, failure(), clock.now());
    clock.advance(30 * SECOND);
    await feed(t, flappy.id, failure(), clock.now());
    const again = await getSensor(t, admin, flappy.id);
    expect(again.status).toBe('down');
    expect(again.incident_id).not.toBe(first);
    const rows = await incidentRows(t, flappy.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ acknowledged: false, acknowledged_by: null, resolved_at: null });
    clock.advance(61 * SECOND);
    await runtimeTick(t);
    expect(kindsOf(flappy.id)).toEqual(['down', 'up', 'down', 'reminder']);
  });
});
