import type { BackupDocument, Incident, RestoreResult, StoredProbeResult } from '@monitor/contracts';
import { testBackend } from '../support/test-database';
import { MutableClock } from './support/clock';
import { readStoredRows } from './support/concurrency';
import { call, Headers, sessionCookieOf, setupAdmin } from './support/http';
import {
  createSensor,
  failure,
  feed,
  flush,
  moveTo,
  type HttpTarget,
  sql,
  startHttpTarget,
  success,
} from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Every stored result names the instance that probed it (issue 16): the instance name on
 * PostgreSQL (cluster mode), '' on SQLite (single-instance mode). Results reach the table three
 * ways: the batch, the transaction of a state change, and Run now.
 */
jest.setTimeout(60_000);

const NOW = Date.parse('2026-11-21T12:00:00Z');
const MINUTE = 60_000;
const INSTANCE = 'probe-east-1';
const EXPECTED = testBackend() === 'postgres' ? INSTANCE : '';

describe('the instance that probed each stored result', () => {
  let t: TestApp;
  let admin: Headers;
  let clock: MutableClock;
  let target: HttpTarget;
  let sensorId: number;

  beforeEach(async () => {
    target = await startHttpTarget(200);
    clock = new MutableClock(NOW);
    t = await startTestApp({ clock, startScheduler: false, env: { MONITOR_INSTANCE_NAME: INSTANCE } });
    admin = await setupAdmin(t);
    sensorId = (
      await createSensor(t, admin, {
        name: 'web',
        type: 'http',
        target: target.url,
        interval: 60,
        retries: 1,
      })
    ).id;
  });

  afterEach(async () => {
    await t.close();
    await target.close();
  });

  const results = async (): Promise<StoredProbeResult[]> => {
    const res = await call<StoredProbeResult[]>(
      t,
      'GET',
      `/api/sensors/${sensorId}/results`,
      undefined,
      admin,
    );
    expect(res.status).toBe(200);
    return res.body;
  };

  it('is stored and answered for batched results, results of a state change and Run now', async () => {
    await feed(t, sensorId, success(), NOW);
    // retries 1: the failure opens an incident and the success after it resolves it, each result
    // written in the state change's own transaction; the last success has no effect and is batched.
    await feed(t, sensorId, failure(), NOW + MINUTE);
    await feed(t, sensorId, success(), NOW + 2 * MINUTE);
    await feed(t, sensorId, success(), NOW + 3 * MINUTE);
    moveTo(clock, NOW + 4 * MINUTE);
    const probe = await call<StoredProbeResult>(
      t,
      'POST',
      `/api/sensors/${sensorId}/probe`,
      undefined,
      admin,
    );
    expect(probe.status).toBe(200);
    expect(target.hits).toBe(1);
    await flush(t);

    const incidents = await call<Incident[]>(
      t,
      'GET',
      `/api/sensors/${sensorId}/incidents`,
      undefined,
      admin,
    );
    expect(incidents.body).toHaveLength(1);
    expect(incidents.body[0].resolved_at).toBe(new Date(NOW + 2 * MINUTE).toISOString());

    const answered = await results();
    expect(answered.map((r) => [Date.parse(r.ts) - NOW, r.success, r.instance])).toEqual([
      [4 * MINUTE, true, EXPECTED],
      [3 * MINUTE, true, EXPECTED],
      [2 * MINUTE, true, EXPECTED],
      [MINUTE, false, EXPECTED],
      [0, true, EXPECTED],
    ]);
    // What is on disk, read through a connection of its own.
    const stored = await readStoredRows<{ instance: string }>(
      t.dataDir,
      'SELECT instance FROM probe_results WHERE sensor_id = ? ORDER BY ts',
      sensorId,
    );
    expect(stored.map((r) => r.instance)).toEqual(Array(5).fill(EXPECTED));
  });

  it("answers '' for a row stored without a prober, as a build before migration 5 wrote it", async () => {
    await feed(t, sensorId, success(), NOW);
    await flush(t);
    const [row] = await readStoredRows<{ instance: string }>(
      t.dataDir,
      'SELECT instance FROM probe_results WHERE sensor_id = ?',
      sensorId,
    );
    expect(row.instance).toBe(EXPECTED);
    // No instance column in the INSERT: the column's default.
    await sql(t, 'INSERT INTO probe_results (sensor_id, ts, success, message) VALUES (?, ?, ?, ?)', [
      sensorId,
      NOW + MINUTE,
      true,
      'old',
    ]);
    expect((await results()).map((r) => r.instance)).toEqual(['', EXPECTED]);
  });

  it('keeps the prober of the stored results through a restore of a schema_version 4 backup', async () => {
    await feed(t, sensorId, success(), NOW);
    await feed(t, sensorId, failure(), NOW + MINUTE);
    await flush(t);
    const response = await fetch(`${t.url}/api/backup?scope=history&days=all`, { headers: admin });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as BackupDocument & { schema_version: number };
    expect(doc.schema_version).toBeGreaterThanOrEqual(5);
    // The document of a build before migration 5 differs only in its schema version: raw results,
    // and so their prober, are not in a backup document (rollups carry the history).
    doc.schema_version = 4;
    const restored = await fetch(`${t.url}/api/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify(doc),
    });
    const body = (await restored.json()) as RestoreResult;
    expect(restored.status).toBe(200);
    // The restore ended the restored accounts' sessions; this caller carries on with its fresh one.
    admin = { cookie: sessionCookieOf(restored) as string };
    expect(body.counts.sensors).toBe(1);
    // The sensor is paired by name and keeps its id, so its raw results stay with their prober.
    const answered = await results();
    expect(answered.map((r) => [r.success, r.instance])).toEqual([
      [false, EXPECTED],
      [true, EXPECTED],
    ]);
  });
});
