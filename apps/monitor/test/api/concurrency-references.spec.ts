import type { Sensor } from '@monitor/contracts';
import {
  expectErrorShapes,
  readStoredRows,
  statusCounts,
  together,
  type Answer,
} from './support/concurrency';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import { failure, feed, success } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Writes that check another row before referring to it, racing the deletion of that row (and
 * rules read across rows: the dashboard order, a sensor's ancestors). On SQLite every write waited
 * for the one write lock; on PostgreSQL the deleting writer must not commit between the check and
 * the write. Outcomes are those of the two requests one after the other: never a 500, never a
 * rule both answers passed.
 */
jest.setTimeout(180_000);

const SENSOR = { type: 'tcp', target: '127.0.0.1:9', enabled: false };
const ROUNDS = 12;

let t: TestApp;
let admin: Headers;
const clock = new MutableClock();

beforeAll(async () => {
  t = await startTestApp({ startScheduler: false, clock });
  admin = await setupAdmin(t);
});

afterAll(() => t.close());

async function created<T = { id: number }>(path: string, body: unknown): Promise<T> {
  const res = await call<T>(t, 'POST', path, body, admin);
  expect(res.status).toBe(201);
  return res.body;
}

/** The statuses of one round's two answers, with no 5xx and every error as `{error}`. */
function statuses(answers: Answer[]): number[] {
  expectErrorShapes(answers);
  for (const answer of answers) expect(answer.status).toBeLessThan(500);
  return answers.map((a) => a.status);
}

it('parallel sensor creates each get a place of their own in the dashboard order', async () => {
  for (let round = 0; round < 3; round++) {
    const answers = await together(
      t,
      Array.from({ length: 10 }, (_, i) => ({
        method: 'POST',
        path: '/api/sensors',
        body: { ...SENSOR, name: `order ${round}-${i}` },
        headers: admin,
      })),
    );
    expect(statusCounts(answers)).toEqual({ 201: 10 });
  }
  expect(
    await readStoredRows(
      t.dataDir,
      'SELECT count(DISTINCT sort_order) AS places, count(*) AS n FROM sensors',
    ),
  ).toEqual([{ places: 30, n: 30 }]);
});

it('a sensor saved with a site while the site is deleted: the sensor keeps the site, or the site is gone and the save refused', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const site = `site ${round}`;
    await created('/api/sites', { name: site });
    const [save, removal] = statuses(
      await together(t, [
        {
          method: 'POST',
          path: '/api/sensors',
          body: { ...SENSOR, name: `at ${site}`, site },
          headers: admin,
        },
        { method: 'DELETE', path: `/api/sites/${encodeURIComponent(site)}`, headers: admin },
      ]),
    );
    const stored = await readStoredRows<{ site: string | null }>(
      t.dataDir,
      'SELECT st.name AS site FROM sensors s LEFT JOIN sites st ON st.id = s.site_id WHERE s.name = ?',
      `at ${site}`,
    );
    if (save === 201) {
      // The site was refused while it had the sensor; the sensor still names it.
      expect(removal).toBe(409);
      expect(stored).toEqual([{ site }]);
    } else {
      expect([save, removal]).toEqual([400, 200]);
      expect(stored).toEqual([]);
    }
  }
});

it('a sensor saved with a channel while the channel is deleted never fails', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const channel = await created('/api/channels', {
      name: `hook ${round}`,
      type: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook' },
    });
    const [save, removal] = statuses(
      await together(t, [
        {
          method: 'POST',
          path: '/api/sensors',
          body: { ...SENSOR, name: `alerting ${round}`, channels: [channel.id] },
          headers: admin,
        },
        { method: 'DELETE', path: `/api/channels/${channel.id}`, headers: admin },
      ]),
    );
    expect(removal).toBeLessThan(300);
    expect([201, 400]).toContain(save);
  }
  expect(
    await readStoredRows(
      t.dataDir,
      'SELECT count(*) AS n FROM sensor_channels WHERE channel_id NOT IN (SELECT id FROM channels)',
    ),
  ).toEqual([{ n: 0 }]);
});

it('a maintenance window naming a sensor while the sensor is deleted never fails', async () => {
  const now = clock.now();
  for (let round = 0; round < ROUNDS; round++) {
    const sensor = await created<Sensor>('/api/sensors', { ...SENSOR, name: `serviced ${round}` });
    const [window, removal] = statuses(
      await together(t, [
        {
          method: 'POST',
          path: '/api/maintenance',
          body: {
            name: `window ${round}`,
            starts_at: new Date(now + 3_600_000).toISOString(),
            ends_at: new Date(now + 7_200_000).toISOString(),
            sensors: [sensor.id],
          },
          headers: admin,
        },
        { method: 'DELETE', path: `/api/sensors/${sensor.id}`, headers: admin },
      ]),
    );
    expect(removal).toBeLessThan(300);
    expect([201, 400]).toContain(window);
  }
});

it('a sensor created under a parent while the parent is deleted never fails', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const parent = await created<Sensor>('/api/sensors', { ...SENSOR, name: `parent ${round}` });
    const [child, removal] = statuses(
      await together(t, [
        {
          method: 'POST',
          path: '/api/sensors',
          body: { ...SENSOR, name: `child ${round}`, parent_id: parent.id },
          headers: admin,
        },
        { method: 'DELETE', path: `/api/sensors/${parent.id}`, headers: admin },
      ]),
    );
    expect(removal).toBeLessThan(300);
    expect([201, 400]).toContain(child);
  }
});

it('two sensors made each other’s parent at once: one is refused, no cycle is stored', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const a = await created<Sensor>('/api/sensors', { ...SENSOR, name: `a ${round}` });
    const b = await created<Sensor>('/api/sensors', { ...SENSOR, name: `b ${round}` });
    const answers = statuses(
      await together(t, [
        {
          method: 'PUT',
          path: `/api/sensors/${a.id}`,
          body: { ...SENSOR, name: a.name, parent_id: b.id },
          headers: admin,
        },
        {
          method: 'PUT',
          path: `/api/sensors/${b.id}`,
          body: { ...SENSOR, name: b.name, parent_id: a.id },
          headers: admin,
        },
      ]),
    );
    expect(answers.sort()).toEqual([200, 400]);
    const parents = await readStoredRows<{ parent_id: number | null }>(
      t.dataDir,
      'SELECT parent_id FROM sensors WHERE id IN (?, ?) ORDER BY id',
      a.id,
      b.id,
    );
    expect(parents.filter((p) => p.parent_id !== null)).toHaveLength(1);
  }
});

it('an acknowledgement racing the recovery that closes the incident: its note is kept, or it is refused', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const sensor = await created<Sensor>('/api/sensors', {
      name: `flaky ${round}`,
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 30,
      retries: 1,
    });
    await feed(t, sensor.id, failure(), clock.now());
    clock.advance(30_000);
    await feed(t, sensor.id, failure(), clock.now());
    const [open] = await readStoredRows<{ id: number }>(
      t.dataDir,
      'SELECT id FROM incidents WHERE sensor_id = ? AND resolved_at IS NULL',
      sensor.id,
    );
    clock.advance(30_000);
    const note = `on it ${round}`;
    const [, ack] = await Promise.all([
      feed(t, sensor.id, success(), clock.now()),
      call(t, 'POST', `/api/incidents/${open.id}/ack`, { note }, admin),
    ]);
    statuses([ack]);
    const [stored] = await readStoredRows<{ resolved: number; acknowledged: number; note: string }>(
      t.dataDir,
      'SELECT count(resolved_at) AS resolved, acknowledged, note FROM incidents WHERE id = ? GROUP BY id',
      open.id,
    );
    if (ack.status === 200) expect(stored).toEqual({ resolved: 1, acknowledged: 1, note });
    else expect([ack.status, stored]).toEqual([409, { resolved: 1, acknowledged: 0, note: '' }]);
  }
});
