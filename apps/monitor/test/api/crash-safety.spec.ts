import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { DeliveryService, OUTBOX_KEEP_MS } from '../../src/channels/delivery.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { boolOf, failure, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/**
 * What survives a crash: a state change is stored with its result and its alerts (the outbox) in
 * one transaction, an alert whose delivery was interrupted is sent at the next start, a start
 * sends nothing already sent, and a resolved outage whose last results were lost is not
 * reconstructed again.
 */
jest.setTimeout(60_000);

/** Probe result rows with `success` as a JS boolean, whichever backend stored them. */
const withBool = (rows: Record<string, unknown>[]) =>
  rows.map((row) => ({ ...row, success: boolOf(row.success) }));

/** A webhook receiver: `accepted` lists the events it answered 200; in `hold` mode it never answers. */
async function startReceiver() {
  const accepted: string[] = [];
  const held: string[] = [];
  const state = { hold: false, status: 200 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const event = String(req.headers['x-monitor-event']);
      if (state.hold) return void held.push(event);
      if (state.status === 200) res.on('finish', () => accepted.push(event));
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    accepted,
    held,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const until = async (check: () => boolean, ms = 5000): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
    if (check()) return true;
  return check();
};

interface OutboxRow {
  id: number;
  channel_id: number;
  kind: string;
  finished_at: number | null;
  error: string | null;
}

describe('crash safety: state changes, the alert outbox and restarts', () => {
  let dataDir: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let clock: MutableClock;
  let t: TestApp | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-crash-'));
    receiver = await startReceiver();
    clock = new MutableClock(Date.now());
  });

  afterAll(async () => {
    await t?.close();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The app on the shared data directory, scheduler held back: the test feeds results by hand. */
  const start = () => startTestApp({ dataDir, clock, startScheduler: false });

  let admin: Headers;
  let sensorId: number;
  let channelId: number;

  it('a result that opens or closes an incident is stored at once, with the incident and one outbox row per channel', async () => {
    t = await start();
    admin = await setupAdmin(t);
    channelId = (
      await call<{ id: number }>(
        t,
        'POST',
        '/api/channels',
        { name: 'hook', type: 'webhook', config: { url: receiver.url } },
        admin,
      )
    ).body.id;
    sensorId = (
      await call<{ id: number }>(
        t,
        'POST',
        '/api/sensors',
        { name: 'crashy', type: 'http', target: 'http://127.0.0.1:9/', retries: 1, channels: [channelId] },
        admin,
      )
    ).body.id;
    const runtime = t.app.get(SensorRuntimeService);
    const downAt = clock.now();
    await runtime.record(sensorId, failure('HTTP 503'), downAt);
    // Read at once, before any batch of ordinary results could have been written.
    expect(
      withBool(
        await sql(t, 'SELECT ts, success, message FROM probe_results WHERE sensor_id = ?', [sensorId]),
      ),
    ).toEqual([{ ts: downAt, success: false, message: 'HTTP 503' }]);
    expect(
      await sql(t, 'SELECT started_at, resolved_at FROM incidents WHERE sensor_id = ?', [sensorId]),
    ).toEqual([{ started_at: downAt, resolved_at: null }]);
    expect(
      await sql(t, 'SELECT status, streak, last_alert_at FROM sensors WHERE id = ?', [sensorId]),
    ).toEqual([{ status: 'down', streak: 1, last_alert_at: downAt }]);
    expect(
      await sql(t, 'SELECT channel_id, kind FROM alert_outbox WHERE sensor_id = ? ORDER BY id', [sensorId]),
    ).toEqual([{ channel_id: channelId, kind: 'down' }]);
    await t.app.get(DeliveryService).idle();

    clock.advance(30_000);
    const upAt = clock.now();
    await runtime.record(sensorId, success(), upAt);
    expect(
      withBool(
        await sql(t, 'SELECT ts, success FROM probe_results WHERE sensor_id = ? ORDER BY ts', [sensorId]),
      ),
    ).toEqual([
      { ts: downAt, success: false },
      { ts: upAt, success: true },
    ]);
    expect(await sql(t, 'SELECT resolved_at FROM incidents WHERE sensor_id = ?', [sensorId])).toEqual([
      { resolved_at: upAt },
    ]);
    expect(await sql(t, 'SELECT status, streak FROM sensors WHERE id = ?', [sensorId])).toEqual([
      { status: 'up', streak: 0 },
    ]);
    await t.app.get(DeliveryService).idle();
    expect(receiver.accepted).toEqual(['down', 'up']);
    const rows = await sql<OutboxRow>(t, 'SELECT kind, finished_at, error FROM alert_outbox ORDER BY id');
    expect(rows).toEqual([
      { kind: 'down', finished_at: expect.any(Number), error: null },
      { kind: 'up', finished_at: expect.any(Number), error: null },
    ]);
  });

  it('an alert whose delivery was interrupted is sent at the next start, and only once', async () => {
    receiver.accepted.splice(0);
    receiver.state.hold = true;
    clock.advance(60_000);
    await t!.app.get(SensorRuntimeService).record(sensorId, failure('refused'), clock.now());
    expect(await until(() => receiver.held.length === 1)).toBe(true);
    // Stopping while the receiver has not answered: the delivery never finished.
    await t!.close();
    t = undefined;
    receiver.state.hold = false;

    t = await start();
    await t.app.get(DeliveryService).idle();
    expect(receiver.accepted).toEqual(['down']);
    const rows = await sql<OutboxRow>(t, 'SELECT kind, finished_at FROM alert_outbox ORDER BY id');
    expect(rows.map((r) => [r.kind, r.finished_at !== null])).toEqual([
      ['down', true],
      ['up', true],
      ['down', true],
    ]);
    expect(t.logs.some((l) => l.msg === 'sending alerts left unsent by the last run' && l.alerts === 1)).toBe(
      true,
    );
  });

  it('a start sends nothing already sent, nor an alert its channel refused for good', async () => {
    receiver.state.status = 400;
    clock.advance(60_000);
    await t!.app.get(SensorRuntimeService).record(sensorId, success(), clock.now());
    await t!.app.get(DeliveryService).idle();
    const [refused] = await sql<OutboxRow>(
      t!,
      `SELECT * FROM alert_outbox WHERE kind = 'up' ORDER BY id DESC LIMIT 1`,
    );
    expect(refused.finished_at).not.toBeNull();
    expect(refused.error).toMatch(/400/);
    await t!.close();
    t = undefined;

    receiver.state.status = 200;
    receiver.accepted.splice(0);
    t = await start();
    await t.app.get(DeliveryService).idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.accepted).toEqual([]);
    expect(t.logs.some((l) => l.msg === 'sending alerts left unsent by the last run')).toBe(false);
    expect(await sql(t, 'SELECT count(*) AS n FROM alert_outbox WHERE finished_at IS NULL')).toEqual([
      { n: 0 },
    ]);
  });

  it('finished outbox rows are pruned after a week', async () => {
    const old = clock.now() - OUTBOX_KEEP_MS - 60_000;
    await sql(t!, `UPDATE alert_outbox SET finished_at = ?, created_at = ? WHERE kind = 'down'`, [old, old]);
    await t!.close();
    t = undefined;
    t = await start();
    expect((await sql<OutboxRow>(t, 'SELECT kind FROM alert_outbox ORDER BY id')).map((r) => r.kind)).toEqual(
      ['up', 'up'],
    );
  });

  it('a resolved outage whose last results never reached the disk is not reconstructed at start', async () => {
    // As a kill -9 left it before: failures stored, the success that resolved them lost.
    const base = clock.now() + 60_000;
    await sql(
      t!,
      'INSERT INTO probe_results (sensor_id, ts, success, status_code, latency_ms, message) VALUES (?, ?, ?, 503, 1, ?), (?, ?, ?, 503, 1, ?)',
      [sensorId, base, false, 'HTTP 503', sensorId, base + 1000, false, 'HTTP 503'],
    );
    await sql(
      t!,
      `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, note) VALUES (?, ?, ?, 'HTTP 503', '')`,
      [sensorId, base, base + 2000],
    );
    await t!.close();
    t = undefined;
    clock.advance(120_000);
    t = await start();
    expect(await sql(t, 'SELECT count(*) AS n FROM incidents WHERE resolved_at IS NULL')).toEqual([{ n: 0 }]);
    expect(t.app.get(SensorRuntimeService).get(sensorId)?.state).toMatchObject({ incident: null, streak: 0 });

    // A new outage after it is a new incident, with its down alert.
    receiver.accepted.splice(0);
    clock.advance(1000);
    await t.app.get(SensorRuntimeService).record(sensorId, failure('HTTP 500'), clock.now());
    await t.app.get(DeliveryService).idle();
    expect(receiver.accepted).toEqual(['down']);
    expect(await sql(t, 'SELECT count(*) AS n FROM incidents WHERE resolved_at IS NULL')).toEqual([{ n: 1 }]);
  });
});
