import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MutableClock } from './support/clock';
import { call, type Headers, setupAdmin } from './support/http';
import { type Sensor, sql } from './support/sensors';
import { startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(90_000);

const PASSWORD = 'legacy-pass-Qx93';
const LIFTED =
  'credentials moved from the target into options.basic_auth_user and options.basic_auth_password';

/**
 * Sensors written before targets with credentials were refused: stored rows (a migration), the
 * configuration file and a restored backup convert them into the basic auth options.
 */
describe('credentials in http targets written before they were refused', () => {
  let dataDir: string;
  let t: TestApp | undefined;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-credentials-'));
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (file?: unknown) =>
    (t = await startTestApp({ startScheduler: false, clock: new MutableClock(), dataDir, file }));
  const sensorsOf = async (headers: Headers) =>
    (await call<Sensor[]>(t!, 'GET', '/api/sensors', undefined, headers)).body;
  const storedRow = async (name: string) => {
    const [row] = await sql<{ target: string; options: string }>(
      t!,
      'SELECT target, options FROM sensors WHERE name = ?',
      [name],
    );
    return { target: row.target, options: JSON.parse(row.options) as Record<string, unknown> };
  };

  it('a migration moves them out of stored targets', async () => {
    await start();
    await sql(
      t!,
      `INSERT INTO sensors (name, type, target, options, created_at, updated_at) VALUES (?, 'http', ?, ?, 0, 0)`,
      ['legacy', `https://ops:${encodeURIComponent(PASSWORD)}%21@127.0.0.1:9/health`, '{"keyword":"ok"}'],
    );
    await sql(t!, 'DELETE FROM migrations WHERE name = ?', ['HttpTargetCredentials1764250000000']);
    await t!.close();
    await start();
    expect(await storedRow('legacy')).toEqual({
      target: 'https://127.0.0.1:9/health',
      options: { keyword: 'ok', basic_auth_user: 'ops', basic_auth_password: `${PASSWORD}!` },
    });
    const admin = await setupAdmin(t!);
    const [sensor] = await sensorsOf(admin);
    expect(sensor).toMatchObject({
      target: 'https://127.0.0.1:9/health',
      options: { keyword: 'ok', basic_auth_user: 'ops', basic_auth_password: '__stored__' },
    });
  });

  it('the configuration file is converted at start, with a warning naming the sensor', async () => {
    await start({
      sensors: [{ name: 'declared', type: 'http', target: `http://ops:${PASSWORD}@127.0.0.1:9/` }],
    });
    expect(await storedRow('declared')).toEqual({
      target: 'http://127.0.0.1:9/',
      options: { basic_auth_user: 'ops', basic_auth_password: PASSWORD },
    });
    const line = t!.logs.find((l) => l.msg.includes(LIFTED));
    expect(line).toMatchObject({ level: 'warn', sensor: 'declared' });
    expect(line?.msg).toContain('configuration file');
    expect(JSON.stringify(t!.logs)).not.toContain(PASSWORD);
  });

  it('a restored backup is converted, with a warning naming the sensor', async () => {
    await start();
    const admin = await setupAdmin(t!);
    const doc = (await (await fetch(`${t!.url}/api/backup`, { headers: admin })).json()) as Record<
      string,
      unknown
    >;
    doc.sensors = [
      {
        name: 'restored',
        type: 'http',
        target: `https://ops:${PASSWORD}@127.0.0.1:9/x`,
        interval: 60,
        retries: 3,
        reminder_every: 0,
        group: '',
        tags: [],
        site: '',
        parent: null,
        enabled: true,
        options: {},
        channels: [],
      },
    ];
    const res = await fetch(`${t!.url}/api/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify(doc),
    });
    expect(res.status).toBe(200);
    expect(await storedRow('restored')).toEqual({
      target: 'https://127.0.0.1:9/x',
      options: { basic_auth_user: 'ops', basic_auth_password: PASSWORD },
    });
    expect(t!.logs.find((l) => l.msg.includes(LIFTED))).toMatchObject({
      level: 'warn',
      sensors: ['restored'],
    });
    expect(JSON.stringify(t!.logs)).not.toContain(PASSWORD);
  });
});
