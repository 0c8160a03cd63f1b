import * as http from 'node:http';
import * as net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { LiveEventKind, ProbeResult } from '@monitor/contracts';
import type { Subject } from 'rxjs';
import { EventBus, type MonitorEvents } from '../../src/core/events/event-bus';
import { LiveHub } from '../../src/live/live-hub.service';
import { DEFAULT_LIVE_OPTIONS } from '../../src/live/live.options';
import { MutableClock } from './support/clock';
import { accountWithRole, apiKeyHeaders, call, Headers, setupAdmin } from './support/http';
import { createSensor, failure, feed, record, Recorder, success } from './support/sensors';
import { LogRecord, startTestApp, TestApp } from './support/test-app';

/**
 * GET /api/events against the real app: headers, one frame per live event kind with its payload,
 * no internal `alert` frames, the keep-alive comment, access, release of subscriptions when clients
 * go, credentials re-checked on a live stream, and a client that stops reading losing events without
 * delaying the publisher or anyone else. A stream never ends, so these tests use their own HTTP
 * client instead of fetch (whose body reader would wait for the end).
 */
jest.setTimeout(60_000);

const SECOND = 1000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

interface Frame {
  /** The `event:` name, or undefined for a comment. */
  event?: string;
  data?: string;
  comment?: string;
  /** performance.now() when the frame was complete. */
  at: number;
}

interface StreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every frame so far (unless opened with keep: false). */
  frames: Frame[];
  /** Everything received, verbatim (unless opened with keep: false). */
  text(): string;
  /** The body of a non-200 answer, parsed. */
  body?: unknown;
  ended: boolean;
  /** Resolves when the server ends the response or the connection goes. */
  done: Promise<void>;
  /** Drops the connection, as a closed browser tab would. */
  destroy(): void;
  events(kind?: string): { event: string; data: unknown }[];
}

/** Opens GET /api/events with its own connection and parses frames as they arrive. */
function openStream(
  t: TestApp,
  headers: Headers,
  options: { accept?: string | null; keep?: boolean; onFrame?: (frame: Frame) => void } = {},
): Promise<StreamClient> {
  const { accept = 'text/event-stream', keep = true, onFrame } = options;
  return new Promise((resolve, reject) => {
    const request = http.request(`${t.url}/api/events`, {
      agent: false,
      headers: { ...(accept === null ? {} : { accept }), ...headers },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let raw = '';
      let pending = '';
      let markDone: () => void = () => undefined;
      const client: StreamClient = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        frames: [],
        text: () => raw,
        ended: false,
        done: new Promise<void>((resolveDone) => (markDone = resolveDone)),
        destroy: () => request.destroy(),
        events: (kind) =>
          client.frames
            .filter((f) => f.event !== undefined && (kind === undefined || f.event === kind))
            .map((f) => ({ event: f.event as string, data: JSON.parse(f.data ?? 'null') as unknown })),
      };
      const finish = () => {
        client.ended = true;
        markDone();
      };
      response.on('end', finish);
      response.on('close', finish);
      response.on('error', finish);
      response.setEncoding('utf8');
      if (client.status !== 200) {
        response.on('data', (chunk: string) => (raw += chunk));
        response.on('end', () => {
          client.body = raw ? (JSON.parse(raw) as unknown) : undefined;
          resolve(client);
        });
        return;
      }
      response.on('data', (chunk: string) => {
        if (keep) raw += chunk;
        pending += chunk;
        let boundary: number;
        while ((boundary = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          const frame: Frame = { at: performance.now() };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('event: ')) frame.event = line.slice('event: '.length);
            else if (line.startsWith('data: ')) frame.data = line.slice('data: '.length);
          }
          if (keep) client.frames.push(frame);
          onFrame?.(frame);
        }
      });
      resolve(client);
    });
    request.end();
  });
}

/** A client that sends the request and then never reads a byte (its receive window fills up). */
async function openStalledStream(t: TestApp, headers: Headers): Promise<net.Socket> {
  const { port } = new URL(t.url);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  const lines = [
    'GET /api/events HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Accept: text/event-stream',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ];
  socket.write(lines.join('\r\n'));
  // No 'data' listener and paused: nothing is read from the kernel.
  socket.pause();
  return socket;
}

/** Observers on the event bus, over every kind. */
function busObservers(t: TestApp): number {
  const subjects = (t.app.get(EventBus) as unknown as { subjects: Map<string, Subject<unknown>> }).subjects;
  let count = 0;
  for (const subject of subjects.values())
    count += (subject as unknown as { observers: unknown[] }).observers.length;
  return count;
}

const streamLogs = (t: TestApp): LogRecord[] =>
  t.logs.filter((l) => l.msg === 'http request' && l.path === '/api/events' && l.status === 200);

/** The payload as it travels: JSON. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('GET /api/events', () => {
  let t: TestApp;
  let clock: MutableClock;
  let hub: LiveHub;
  let admin: Headers;
  let viewer: Headers;
  const open: StreamClient[] = [];

  async function stream(headers: Headers, options?: Parameters<typeof openStream>[2]): Promise<StreamClient> {
    const client = await openStream(t, headers, options);
    open.push(client);
    return client;
  }

  beforeAll(async () => {
    clock = new MutableClock();
    t = await startTestApp({ startScheduler: false, clock });
    hub = t.app.get(LiveHub);
    admin = await setupAdmin(t);
    viewer = (await accountWithRole(t, admin, 'vera', 'viewer')).headers;
  });

  afterEach(async () => {
    hub.configure({ ...DEFAULT_LIVE_OPTIONS });
    for (const client of open.splice(0)) client.destroy();
    await waitUntil(() => hub.size === 0, 'every stream to be released');
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers a viewer with an event stream and the usual security headers, never compressed', async () => {
    const client = await stream({ ...viewer, 'accept-encoding': 'gzip, deflate, br' });
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream');
    expect(client.headers['cache-control']).toBe('no-store');
    expect(client.headers['x-accel-buffering']).toBe('no');
    expect(client.headers['x-content-type-options']).toBe('nosniff');
    expect(client.headers['x-frame-options']).toBe('DENY');
    expect(client.headers['content-security-policy']).toContain("default-src 'self'");
    expect(client.headers['content-length']).toBeUndefined();
    expect(client.headers['content-encoding']).toBeUndefined();
    await waitUntil(() => hub.size === 1, 'the stream to be registered');
    expect(client.ended).toBe(false);
  });

  it('refuses a request without credentials (401) and one that does not accept a stream (406)', async () => {
    const anonymous = await stream({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: expect.any(String) as string });

    const plain = await stream(viewer, { accept: null });
    expect(plain.status).toBe(406);
    expect((plain.body as { error: string }).error).toMatch(/text\/event-stream/);

    // What fetch sends by default: answered at once, so a body reader never waits for ever.
    const fetched = await call<{ error: string }>(t, 'GET', '/api/events', undefined, viewer);
    expect(fetched.status).toBe(406);
    expect(hub.size).toBe(0);
  });

  it('accepts the API key, and every role', async () => {
    const key = await apiKeyHeaders(t, admin);
    const operator = (await accountWithRole(t, admin, 'otto', 'operator')).headers;
    for (const headers of [key, operator, admin, viewer]) expect((await stream(headers)).status).toBe(200);
    await waitUntil(() => hub.size === 4, 'four streams');
  });

  it('sends sensor, channel and settings frames for API changes', async () => {
    const client = await stream(viewer);
    await waitUntil(() => hub.size === 1, 'the stream');

    const sensor = await createSensor(t, admin, {
      name: 'web',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 30,
    });
    await waitUntil(() => client.events('sensor').length === 1, 'the sensor frame');
    expect(client.events('sensor')[0].data).toEqual({ id: sensor.id, action: 'created' });

    expect((await call(t, 'PUT', `/api/sensors/${sensor.id}`, { name: 'website' }, admin)).status).toBe(200);
    expect((await call(t, 'DELETE', `/api/sensors/${sensor.id}`, undefined, admin)).status).toBeLessThan(300);
    await waitUntil(() => client.events('sensor').length === 3, 'the update and delete frames');
    expect(client.events('sensor').map((e) => e.data)).toEqual([
      { id: sensor.id, action: 'created' },
      { id: sensor.id, action: 'updated' },
      { id: sensor.id, action: 'deleted' },
    ]);

    const channel = await call<{ id: number }>(
      t,
      'POST',
      '/api/channels',
      { name: 'ops', type: 'webhook', config: { url: 'http://127.0.0.1:9/' } },
      admin,
    );
    expect(channel.status).toBe(201);
    await waitUntil(() => client.events('channel').length === 1, 'the channel frame');
    expect(client.events('channel')[0].data).toEqual({ id: channel.body.id, action: 'created' });

    expect((await call(t, 'PUT', '/api/settings', { ui: { theme: 'dark' } }, viewer)).status).toBe(200);
    await waitUntil(() => client.events('settings').length === 1, 'the settings frame');
    expect(client.events('settings')[0].data).toEqual({});
    // The raw frame: an event line, one data line of JSON, a blank line.
    expect(client.text()).toContain('event: settings\ndata: {}\n\n');
  });

  it('sends result, status and incident frames as a sensor goes down and up, and never an alert', async () => {
    const recorders = {
      result: record(t, 'result'),
      status: record(t, 'status'),
      incident: record(t, 'incident'),
      alert: record(t, 'alert'),
    };
    try {
      const client = await stream(viewer);
      await waitUntil(() => hub.size === 1, 'the stream');
      const sensor = await createSensor(t, admin, {
        name: 'api',
        type: 'http',
        target: 'http://127.0.0.1:9/',
        interval: 30,
        retries: 2,
      });
      const live = () => client.events().filter((e) => e.event !== 'sensor');

      await feed(t, sensor.id, failure('HTTP 500'), clock.now());
      await waitUntil(() => live().length === 2, 'the first failure');
      expect(live().map((e) => e.event)).toEqual(['result', 'status']);
      expect(live()[1].data).toEqual({
        sensor_id: sensor.id,
        status: 'warn',
        result: { ts: expect.any(String) as string, success: false, message: 'HTTP 500' },
      });

      clock.advance(30 * SECOND);
      await feed(t, sensor.id, failure('HTTP 503'), clock.now());
      await waitUntil(() => live().length === 5, 'the incident');
      expect(live().map((e) => e.event)).toEqual(['result', 'status', 'result', 'status', 'incident']);
      const down = live()[3].data as MonitorEvents['status'];
      expect(down).toMatchObject({ sensor_id: sensor.id, status: 'down' });
      expect(down.result).toEqual({
        ts: new Date(clock.now()).toISOString(),
        success: false,
        message: 'HTTP 503',
      });
      const opened = live()[4].data as MonitorEvents['incident'];
      expect(opened.sensor_id).toBe(sensor.id);
      expect(opened.incident).toMatchObject({ sensor_id: sensor.id, sensor_name: 'api' });
      expect(opened.incident.resolved_at).toBeUndefined();
      const result = live()[2].data as { sensor_id: number; result: ProbeResult };
      expect(result).toEqual({
        sensor_id: sensor.id,
        result: {
          ts: new Date(clock.now()).toISOString(),
          success: false,
          status_code: 503,
          message: 'HTTP 503',
          latency_ms: 12,
        },
      });

      clock.advance(30 * SECOND);
      await feed(t, sensor.id, success(), clock.now());
      await waitUntil(() => live().length === 8, 'the recovery');
      expect(
        live()
          .slice(5)
          .map((e) => e.event),
      ).toEqual(['result', 'status', 'incident']);
      expect((live()[6].data as MonitorEvents['status']).status).toBe('up');
      expect((live()[7].data as MonitorEvents['incident']).incident.resolved_at).toEqual(expect.any(String));

      // Every frame carries exactly what was published on the bus.
      for (const kind of ['result', 'status', 'incident'] as const) {
        expect(client.events(kind).map((e) => e.data)).toEqual(recorders[kind].events.map(asJson));
      }

      // Alerts went out on the bus (down, then up) but are internal: never on the stream, even
      // when published directly.
      expect(recorders.alert.events.map((a) => a.kind)).toEqual(['down', 'up']);
      t.app.get(EventBus).emit('alert', recorders.alert.events[0]);
      t.app.get(EventBus).emit('settings', {});
      await waitUntil(() => client.events('settings').length === 1, 'a later frame');
      const names = new Set(client.frames.map((f) => f.event));
      expect([...names].sort()).toEqual(['incident', 'result', 'sensor', 'settings', 'status']);
      expect(client.text()).not.toContain('event: alert');
    } finally {
      for (const recorder of Object.values(recorders) as Recorder<LiveEventKind | 'alert'>[]) recorder.stop();
    }
  });

  it('sends the keep-alive comment every period (shortened here from 25 seconds)', async () => {
    expect(DEFAULT_LIVE_OPTIONS.keepAliveMs).toBe(25_000);
    hub.configure({ keepAliveMs: 200 });
    const opened = performance.now();
    const client = await stream(viewer);
    await waitUntil(() => client.frames.filter((f) => f.comment === 'keep-alive').length >= 3, 'keep-alives');
    const times = client.frames.filter((f) => f.comment === 'keep-alive').map((f) => f.at);
    // Not before the period has passed, and not in bursts.
    expect(times[0] - opened).toBeGreaterThanOrEqual(150);
    expect(times[2] - times[0]).toBeGreaterThanOrEqual(300);
    expect(client.text()).toMatch(/^(: keep-alive\n\n)+$/);
  });

  it('releases the subscription when the client goes', async () => {
    const observersBefore = busObservers(t);
    const logsBefore = streamLogs(t).length;
    const clients = [await stream(viewer), await stream(viewer), await stream(admin)];
    await waitUntil(() => hub.size === 3, 'three streams');
    expect(busObservers(t)).toBeGreaterThan(observersBefore);

    clients[0].destroy();
    await waitUntil(() => hub.size === 2, 'one stream to be released');
    clients[1].destroy();
    clients[2].destroy();
    await waitUntil(() => hub.size === 0, 'every stream to be released');
    expect(busObservers(t)).toBe(observersBefore);

    // One request log line per stream, written when it ended.
    await waitUntil(() => streamLogs(t).length === logsBefore + 3, 'the request log lines');
    for (const line of streamLogs(t).slice(logsBefore)) {
      expect(line).toMatchObject({ level: 'info', method: 'GET', events_dropped: 0 });
      expect(typeof line.duration_ms).toBe('number');
    }
    // Publishing with nobody listening is a no-op.
    t.app.get(EventBus).emit('settings', {});
  });

  it('ends a stream whose account is disabled, at the next keep-alive', async () => {
    hub.configure({ keepAliveMs: 150 });
    const ivy = await accountWithRole(t, admin, 'ivy', 'viewer');
    const client = await stream(ivy.headers);
    const other = await stream(viewer);
    await waitUntil(() => hub.size === 2, 'two streams');
    await sleep(400);
    expect(client.ended).toBe(false);

    expect((await call(t, 'PUT', `/api/users/${ivy.id}`, { disabled: true }, admin)).status).toBe(200);
    await waitUntil(() => client.ended, 'the disabled account’s stream to end', 5_000);
    expect(other.ended).toBe(false);
    expect(hub.size).toBe(1);
    expect(t.logs.some((l) => l.msg === 'live stream ended: its credentials are no longer valid')).toBe(true);
  });

  it('a subscriber that stops reading loses events; the publisher and the other subscriber never wait', async () => {
    const bus = t.app.get(EventBus);
    const { maxQueuedFrames, maxQueuedBytes } = hub.options;
    const received: number[] = [];
    const fast = await stream(viewer, {
      keep: false,
      onFrame: (frame) => {
        if (frame.event !== 'result') return;
        const data = JSON.parse(frame.data as string) as MonitorEvents['result'];
        received.push(Number(data.result.message.slice(0, data.result.message.indexOf(' '))));
      },
    });
    await waitUntil(() => hub.size === 1, 'the reading stream');
    const slow = await openStalledStream(t, viewer);
    try {
      await waitUntil(() => hub.size === 2, 'the stalled stream');

      // 4,000 results of 8 KiB: 32 MiB, far more than the kernel buffers of the stalled connection.
      const count = 4000;
      const padding = 'x'.repeat(8 * 1024);
      for (let i = 0; i < count; i++) {
        const result: ProbeResult = {
          ts: new Date(clock.now() + i).toISOString(),
          success: false,
          status_code: 500,
          message: `${i} ${padding}`,
          latency_ms: 1,
        };
        bus.emit('result', { sensor_id: 999, result });
        // Publish as fast as the reading client keeps up (it is never more than 64 events behind).
        if (i % 16 === 15) await waitUntil(() => received.length >= i - 48, 'the reading client to keep up');
      }
      await waitUntil(() => received.length === count, 'every event at the reading client');
      expect(received).toEqual(Array.from({ length: count }, (_, i) => i));

      const stats = hub.stats();
      const fastStats = stats.find((s) => s.dropped === 0 && s.sent === count);
      const slowStats = stats.find((s) => s.dropped > 0);
      expect(fastStats).toBeDefined();
      expect(slowStats).toBeDefined();
      expect(slowStats?.blocked).toBe(true);
      for (const s of stats) {
        expect(s.peakQueuedFrames).toBeLessThanOrEqual(maxQueuedFrames);
        expect(s.peakQueuedBytes).toBeLessThanOrEqual(maxQueuedBytes);
      }
      // What the stalled client still gets is bounded too: what it took before it filled up, plus
      // the queue; the rest was dropped.
      expect((slowStats?.sent ?? 0) + (slowStats?.dropped ?? 0)).toBe(count);
      expect(slowStats?.dropped).toBeGreaterThan(count / 2);

      const warnings = t.logs.filter((l) => l.msg === 'live subscriber is not keeping up: dropping events');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warn', subscriber: slowStats?.id });

      slow.destroy();
      await waitUntil(() => hub.size === 1, 'the stalled stream to be released');
      await waitUntil(
        () => t.logs.some((l) => l.msg === 'live subscriber closed after dropping events'),
        'the closing warning',
      );
      expect(t.logs.find((l) => l.msg === 'live subscriber closed after dropping events')).toMatchObject({
        level: 'warn',
        subscriber: slowStats?.id,
        events_dropped: slowStats?.dropped,
      });
      expect(fast.ended).toBe(false);
    } finally {
      slow.destroy();
    }
  });
});

describe('GET /api/events at shutdown', () => {
  it('ends open streams, so closing the application does not wait for them', async () => {
    const t = await startTestApp({ startScheduler: false });
    let client: StreamClient | undefined;
    let stalled: net.Socket | undefined;
    try {
      const admin = await setupAdmin(t);
      client = await openStream(t, admin);
      stalled = await openStalledStream(t, admin);
      await waitUntil(() => t.app.get(LiveHub).size === 2, 'two streams');
    } finally {
      const started = performance.now();
      await t.close();
      expect(performance.now() - started).toBeLessThan(10_000);
      stalled?.destroy();
    }
    await client.done;
    expect(client.ended).toBe(true);
  });
});
