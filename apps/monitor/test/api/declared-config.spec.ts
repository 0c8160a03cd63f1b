import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { MaintenanceWindow, Sensor } from '@monitor/contracts';
import { MutableClock } from './support/clock';
import { ADMIN, call, Headers, setupAdmin, signIn } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Sites, channels, sensors and maintenance windows declared in the configuration file: applied at
 * start, matched by name, marked `managed_by: "config"`, and refused (409) to the API.
 */
jest.setTimeout(60_000);

interface ChannelView {
  id: number;
  name: string;
  managed_by: string | null;
  config: Record<string, unknown>;
}

const FILE = {
  sites: [{ name: 'HQ', kind: 'local', lat: 52.5, lon: 13.4 }],
  channels: [
    {
      name: 'ops hook',
      type: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook', hmac_secret: 'file secret' },
    },
  ],
  sensors: [
    {
      name: 'homepage',
      type: 'http',
      target: 'http://127.0.0.1:9/',
      interval: 30,
      tags: ['web'],
      site: 'HQ',
      channels: ['ops hook'],
    },
    {
      name: 'switch',
      type: 'snmp',
      target: '127.0.0.1',
      options: { oid: '1.3.6.1.2.1.1.3.0', community: 'c0mmunity' },
    },
  ],
  maintenance: [
    {
      name: 'patch night',
      starts_at: '2026-12-01T22:00:00Z',
      ends_at: '2026-12-02T02:00:00Z',
      sensors: ['homepage'],
    },
  ],
};

describe('resources declared in the configuration file', () => {
  let dataDir: string;
  let t: TestApp | undefined;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-declared-'));
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (file: unknown) =>
    (t = await startTestApp({ startScheduler: false, clock: new MutableClock(), dataDir, file }));
  const get = async <T>(headers: Headers, url: string) =>
    (await call<T>(t!, 'GET', url, undefined, headers)).body;

  it('are created at start, marked as managed by the file, with sites and channels resolved by name', async () => {
    await start(FILE);
    const admin = await setupAdmin(t!);
    const sensors = await get<Sensor[]>(admin, '/api/sensors');
    const channels = await get<ChannelView[]>(admin, '/api/channels');
    expect(channels).toEqual([
      expect.objectContaining({
        name: 'ops hook',
        managed_by: 'config',
        config: { url: 'http://127.0.0.1:9/hook', hmac_secret: '__stored__' },
      }),
    ]);
    expect(sensors.map((s) => [s.name, s.managed_by, s.site, s.channels, s.interval])).toEqual([
      ['homepage', 'config', 'HQ', [channels[0].id], 30],
      ['switch', 'config', '', [], 60],
    ]);
    expect(sensors[1].options.community).toBe('__stored__');
    const windows = await get<MaintenanceWindow[]>(admin, '/api/maintenance');
    expect(windows).toEqual([
      expect.objectContaining({ name: 'patch night', managed_by: 'config', sensors: [sensors[0].id] }),
    ]);
    expect(t!.logs.find((l) => l.msg === 'configuration file applied')).toMatchObject({
      sites: 1,
      channels: 1,
      sensors: 2,
      maintenance: 1,
    });
  });

  it('are refused to the API with 409: the file wins', async () => {
    await start(FILE);
    const admin = await setupAdmin(t!);
    const [homepage] = await get<Sensor[]>(admin, '/api/sensors');
    const [hook] = await get<ChannelView[]>(admin, '/api/channels');
    const [window] = await get<MaintenanceWindow[]>(admin, '/api/maintenance');
    const refusals: [string, string, unknown][] = [
      ['PUT', `/api/sensors/${homepage.id}`, { interval: 90 }],
      ['PATCH', `/api/sensors/${homepage.id}`, { enabled: false }],
      ['DELETE', `/api/sensors/${homepage.id}`, undefined],
      ['PUT', `/api/channels/${hook.id}`, { name: 'renamed' }],
      ['DELETE', `/api/channels/${hook.id}`, undefined],
      ['DELETE', `/api/maintenance/${window.id}`, undefined],
    ];
    for (const [method, url, body] of refusals) {
      const res = await call<{ error: string }>(t!, method, url, body, admin);
      expect([method, url, res.status]).toEqual([method, url, 409]);
      expect(res.body.error).toMatch(/is managed by the configuration file$/);
    }
    expect((await get<Sensor[]>(admin, '/api/sensors'))[0]).toMatchObject({ interval: 30, enabled: true });
  });

  it('are matched by name across restarts: updated in place, adopted when the API made them, released when dropped', async () => {
    await start({ sensors: [] });
    const admin = await setupAdmin(t!);
    const made = await call<Sensor>(
      t!,
      'POST',
      '/api/sensors',
      { name: 'homepage', type: 'tcp', target: '127.0.0.1:9' },
      admin,
    );
    await t!.close();

    await start(FILE);
    let key = await signIn(t!, ADMIN.username, ADMIN.password);
    const adopted = await get<Sensor[]>(key, '/api/sensors');
    expect(adopted.find((s) => s.name === 'homepage')).toMatchObject({
      id: made.body.id,
      type: 'http',
      managed_by: 'config',
    });
    await t!.close();

    await start({
      ...FILE,
      channels: [],
      sensors: [{ ...FILE.sensors[0], interval: 45, channels: [] }],
      maintenance: [],
    });
    key = await signIn(t!, ADMIN.username, ADMIN.password);
    const after = await get<Sensor[]>(key, '/api/sensors');
    expect(after.map((s) => [s.id, s.name, s.interval, s.managed_by])).toEqual([
      [made.body.id, 'homepage', 45, 'config'],
      [expect.any(Number), 'switch', 60, null],
    ]);
    const channels = await get<ChannelView[]>(key, '/api/channels');
    expect(channels.map((c) => [c.name, c.managed_by])).toEqual([['ops hook', null]]);
    expect((await call(t!, 'DELETE', `/api/channels/${channels[0].id}`, undefined, key)).status).toBe(200);
  });

  it('stops start-up with one line naming a declaration the API would refuse', async () => {
    const bad = { sensors: [{ name: 'switch', type: 'snmp', target: '127.0.0.1', options: {} }] };
    await expect(start(bad)).rejects.toThrow(/^configuration file: sensors "switch": .*oid/);
    const badChannel = {
      channels: [{ name: 'room', type: 'federated_chat', config: { homeserver_url: 'http://127.0.0.1:9' } }],
    };
    await expect(start(badChannel)).rejects.toThrow(/^configuration file: channels "room": /);
  });
});
