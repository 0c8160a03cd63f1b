import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProbeResult } from '@monitor/contracts';
import { EventBus } from '../../src/core/events/event-bus';
import { readStoredRows } from './support/concurrency';
import { setupAdmin } from './support/http';
import { createSensor } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * A result is announced only once its row is committed (issue 25): whoever hears of it, on the
 * live stream or on the event bus the cluster and the metrics follow, can read it from the
 * database at that moment, through a connection of its own. Real scheduler, real probes of a
 * local target, both backends.
 */
jest.setTimeout(60_000);

const WANTED = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Seen {
  sensorId: number;
  ts: string;
  /** Whether the row was found when read at once on hearing of it. */
  stored: Promise<boolean>;
}

describe('results are stored before they are announced', () => {
  let t: TestApp;
  let target: http.Server;
  let stream: http.ClientRequest | undefined;

  beforeAll(async () => {
    target = http.createServer((_request, response) => response.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    t = await startTestApp();
  });

  afterAll(async () => {
    stream?.destroy();
    await t?.close();
    await new Promise((resolve) => target.close(resolve));
  });

  const isStored = async (sensorId: number, ts: string): Promise<boolean> => {
    const rows = await readStoredRows<{ n: number }>(
      t.dataDir,
      'SELECT count(*) AS n FROM probe_results WHERE sensor_id = ? AND ts = ?',
      sensorId,
      Date.parse(ts),
    );
    return Number(rows[0].n) === 1;
  };

  it('every result event, on the stream and on the bus, finds its row already in the database', async () => {
    const admin = await setupAdmin(t);
    const onBus: Seen[] = [];
    const onStream: Seen[] = [];
    const subscription = t.app
      .get(EventBus)
      .on('result')
      .subscribe(({ sensor_id, result }) =>
        onBus.push({ sensorId: sensor_id, ts: result.ts, stored: isStored(sensor_id, result.ts) }),
      );
    try {
      await new Promise<void>((resolve, reject) => {
        stream = http.request(`${t.url}/api/events`, { headers: { accept: 'text/event-stream', ...admin } });
        stream.on('error', reject);
        stream.on('response', (response) => {
          expect(response.statusCode).toBe(200);
          let pending = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            pending += chunk;
            let boundary: number;
            while ((boundary = pending.indexOf('\n\n')) >= 0) {
              const block = pending.slice(0, boundary);
              pending = pending.slice(boundary + 2);
              if (!block.split('\n').includes('event: result')) continue;
              const data = block
                .split('\n')
                .find((l) => l.startsWith('data: '))!
                .slice('data: '.length);
              const { sensor_id, result } = JSON.parse(data) as { sensor_id: number; result: ProbeResult };
              onStream.push({ sensorId: sensor_id, ts: result.ts, stored: isStored(sensor_id, result.ts) });
            }
          });
          resolve();
        });
        stream.end();
      });
      const { port } = target.address() as AddressInfo;
      for (let i = 0; i < 5; i++)
        await createSensor(t, admin, {
          name: `durable ${i}`,
          type: 'http',
          target: `http://127.0.0.1:${port}/${i}`,
          interval: 1,
        });
      const until = Date.now() + 30_000;
      while (onStream.length < WANTED && Date.now() < until) await sleep(50);
      expect(onStream.length).toBeGreaterThanOrEqual(WANTED);
      for (const seen of [onBus, onStream])
        for (const { sensorId, ts, stored } of seen)
          expect({ sensorId, ts, stored: await stored }).toEqual({ sensorId, ts, stored: true });
    } finally {
      subscription.unsubscribe();
    }
  });
});
