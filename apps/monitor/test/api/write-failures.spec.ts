import { StorageHealth } from '../../src/core/database/storage-health';
import { ResultWriter } from '../../src/history/result-writer.service';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { createSensor, flush, sql, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/** Result writes that fail for a reason other than the disk (here a trigger), without root. */
describe('probe results while writing them fails', () => {
  let t: TestApp;
  let admin: Headers;
  const clock = new MutableClock();

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false, clock });
    admin = await setupAdmin(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('are kept, retried with backoff under one log line, and written once writing works again', async () => {
    const sensor = await createSensor(t, admin, {
      name: 'kept',
      type: 'http',
      target: 'http://127.0.0.1:9/',
    });
    await sql(
      t,
      `CREATE TRIGGER block_results BEFORE INSERT ON probe_results
       BEGIN SELECT RAISE(ABORT, 'results blocked by the test'); END`,
    );
    const health = t.app.get(StorageHealth);
    const writer = t.app.get(ResultWriter);
    // As the scheduler does: queued, not awaited until stored (that waits for the writes to work).
    const runtime = t.app.get(SensorRuntimeService);
    const probed = (at: number) => runtime.submit(sensor.id, success(), at);

    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await probed(clock.now());
    }
    await flush(t);
    expect(health.problem()).toMatchObject({
      failures: 1,
      reason: expect.stringContaining('results blocked'),
    });

    // New results and flushes during the backoff do not retry the batch, and log nothing more.
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      await probed(clock.now());
      await flush(t);
    }
    expect(health.problem()?.failures).toBe(1);
    expect(writer.oldestPending()).toBeLessThan(Infinity);
    const unhealthy = await call<{ error: string }>(t, 'GET', '/healthz');
    expect(unhealthy.status).toBe(503);
    expect(unhealthy.body.error).toMatch(/^database writes failing since .*results blocked by the test/);

    // Only a successful write of the results ends this spell; a health check cannot tell.
    expect((await call(t, 'GET', '/healthz')).status).toBe(503);
    await sql(t, 'DROP TRIGGER block_results');
    const stored = async () =>
      (
        await sql<{ n: number }>(t, 'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ?', [
          sensor.id,
        ])
      )[0].n;
    for (let waited = 0; (await stored()) < 25 && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await stored()).toBe(25);
    expect(health.problem()).toBeNull();
    expect((await call(t, 'GET', '/healthz')).status).toBe(200);

    const spell = t.logs.filter((l) => /storage|writes failing|writing probe results/.test(l.msg));
    expect(spell.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'writing probe results failed'],
      ['info', 'storage recovered'],
    ]);
  });
});
