import { newPushToken } from '@monitor/probes';
import { SensorRuntimeService } from '../../src/scheduler/sensor-runtime.service';
import { call, Headers, setupAdmin } from './support/http';
import { push } from './support/push';
import { rawRequest } from './support/raw-http';
import { createSensor, Sensor } from './support/sensors';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

/** What anyone on the network can send to the push URL: made-up tokens, odd spellings. */
describe('push URLs against abuse', () => {
  let t: TestApp;
  let admin: Headers;

  async function pushSensor(name: string): Promise<{ sensor: Sensor; token: string }> {
    const sensor = await createSensor(t, admin, { name, type: 'push', target: '', interval: 60 });
    return { sensor, token: sensor.options.token as string };
  }

  beforeAll(async () => {
    t = await startTestApp({ startScheduler: false });
    admin = await setupAdmin(t);
  });
  afterAll(() => t.close());

  it('answers a flood of unknown tokens without passing over the sensors, and still learns new ones', async () => {
    const runtime = t.app.get(SensorRuntimeService);
    expect((await push(t, newPushToken(), '?status=up')).status).toBe(404);
    const passes = jest.spyOn(runtime, 'all');
    try {
      for (let i = 0; i < 300; i++) {
        const res = await push(t, newPushToken(), '?status=up');
        expect(res.status).toBe(404);
      }
      expect(passes).not.toHaveBeenCalled();
      // A sensor created since, and a token rotated since, are found at their first push.
      const { sensor, token } = await pushSensor('flooded job');
      expect((await push(t, token, '?status=up')).status).toBe(200);
      const rotated = await call<{ token: string }>(
        t,
        'POST',
        `/api/sensors/${sensor.id}/push-token`,
        undefined,
        admin,
      );
      expect((await push(t, token, '?status=up')).status).toBe(404);
      expect((await push(t, rotated.body.token, '?status=up')).status).toBe(200);
      const learned = passes.mock.calls.length;
      for (let i = 0; i < 100; i++) await push(t, newPushToken(), '?status=up');
      expect(passes).toHaveBeenCalledTimes(learned);
    } finally {
      passes.mockRestore();
    }
  });

  it('never writes a token to the request log, however the push URL is spelled', async () => {
    const { token } = await pushSensor('spelled job');
    const hex = (c: string) => '%' + c.charCodeAt(0).toString(16).toUpperCase();
    const escaped = [...token].map(hex).join('');
    const paths = [
      `/api/pu%73h/${token}?status=up`,
      `/api/push/${escaped}?status=up`,
      `/api/push/${hex(token[0]!)}${token.slice(1)}`,
      `/api/push/${token};v=1?status=up`,
      `/api/push/${token}/`,
      `/api/push/${token}/extra?status=up`,
      `//api/push/${token}`,
      `/api//push/${token}`,
      `/API/PUSH/${token}`,
      `/api/./push/${token}`,
      `/api/x/../push/${token}`,
      `/api/%2570ush/${token}`,
      `/api/push/${token}%ZZ`,
      `/api/push/${token}${'x'.repeat(120)}`,
    ];
    const from = t.logs.length;
    const statuses: number[] = [];
    for (const method of ['GET', 'POST']) {
      for (const p of paths) {
        const body = method === 'POST' ? '{}' : '';
        const head = `${method} ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`;
        const type = method === 'POST' ? 'content-type: application/json\r\n' : '';
        const res = await rawRequest(t.url, `${head}${type}content-length: ${body.length}\r\n\r\n${body}`);
        statuses.push(res.status);
      }
    }
    // Several spellings reach the push route itself, the others are refused by the router.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(6);
    expect(statuses).not.toContain(0);
    const lines = t.logs.slice(from).filter((l) => l.msg === 'http request');
    expect(lines).toHaveLength(paths.length * 2);
    expect(new Set(lines.map((l) => l.path))).toEqual(new Set(['/api/push/{token}']));
    const text = JSON.stringify(t.logs).toLowerCase();
    for (const secret of [token, token.slice(1), escaped, token.slice(0, 16)])
      expect(text).not.toContain(secret.toLowerCase());
  });
});
