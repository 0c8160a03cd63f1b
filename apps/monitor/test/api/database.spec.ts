import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { MIGRATION_NAMES } from '../../src/core/database/migrations';
import { startTestApp, TestApp } from './support/test-app';

type Plan = { detail: string }[];

describe('storage', () => {
  let root: string;
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-db-'));
    t = await startTestApp({ dataDir: path.join(root, 'nested', 'data') });
    db = t.app.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const plan = async (sql: string, params: unknown[] = []): Promise<string> =>
    ((await db.query(`EXPLAIN QUERY PLAN ${sql}`, params)) as Plan).map((row) => row.detail).join(' | ');

  const now = Date.parse('2026-11-21T12:00:00Z');
  const insertSensor = async (name: string): Promise<number> => {
    await db.query(
      `INSERT INTO sensors (name, type, target, created_at, updated_at) VALUES (?, 'http', 'http://127.0.0.1', ?, ?)`,
      [name, now, now],
    );
    const [{ id }] = (await db.query('SELECT last_insert_rowid() AS id')) as { id: number }[];
    return id;
  };

  it('creates the data directory and <data-dir>/monitor.db', () => {
    expect(fs.statSync(t.dataDir).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(t.dataDir, 'monitor.db'))).toBe(true);
  });

  it('runs in WAL mode with foreign keys on and a busy timeout', async () => {
    expect(await db.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await db.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    const [{ timeout }] = (await db.query('PRAGMA busy_timeout')) as { timeout: number }[];
    expect(timeout).toBeGreaterThanOrEqual(1000);
  });

  it('applies every migration once and the entities agree with the migrated schema', async () => {
    const applied = ((await db.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[]).map(
      (r) => r.name,
    );
    expect(applied).toEqual([...MIGRATION_NAMES]);
    const pending = await db.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('holds a table for every resource of the specification', async () => {
    const tables = (
      (await db.query(`SELECT name FROM sqlite_master WHERE type = 'table'`)) as { name: string }[]
    ).map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'sensors',
        'probe_results',
        'rollup_hourly',
        'rollup_daily',
        'incidents',
        'channels',
        'sensor_channels',
        'users',
        'recovery_codes',
        'sites',
        'settings',
        'maintenance_windows',
        'maintenance_window_sensors',
        'installation_secrets',
      ]),
    );
  });

  it.each([
    [
      'latest results of one sensor',
      'SELECT * FROM probe_results WHERE sensor_id = ? ORDER BY ts DESC LIMIT 40',
      [1],
    ],
    [
      'results of one sensor in a time window',
      'SELECT * FROM probe_results WHERE sensor_id = ? AND ts >= ? AND ts < ? ORDER BY ts',
      [1, 0, now],
    ],
    [
      'open incident of one sensor',
      'SELECT * FROM incidents WHERE sensor_id = ? AND resolved_at IS NULL',
      [1],
    ],
    [
      'incidents of one sensor, newest first',
      'SELECT * FROM incidents WHERE sensor_id = ? ORDER BY started_at DESC',
      [1],
    ],
    [
      'hourly buckets of one sensor in a window',
      'SELECT * FROM rollup_hourly WHERE sensor_id = ? AND bucket_start >= ? ORDER BY bucket_start',
      [1, 0],
    ],
    [
      'daily buckets of one sensor in a window',
      'SELECT * FROM rollup_daily WHERE sensor_id = ? AND bucket_start >= ? ORDER BY bucket_start',
      [1, 0],
    ],
  ])('%s is served by an index, without a table scan or a sort', async (_name, sql, params) => {
    const detail = await plan(sql, params);
    expect(detail).toMatch(/SEARCH/);
    expect(detail).not.toMatch(/\bSCAN\b/);
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });

  it('allows at most one open incident per sensor', async () => {
    const sensor = await insertSensor('one-open');
    await db.query(`INSERT INTO incidents (sensor_id, started_at) VALUES (?, ?)`, [sensor, now]);
    await expect(
      db.query(`INSERT INTO incidents (sensor_id, started_at) VALUES (?, ?)`, [sensor, now + 1]),
    ).rejects.toThrow(/UNIQUE/);
    await db.query(`UPDATE incidents SET resolved_at = ? WHERE sensor_id = ?`, [now + 2, sensor]);
    await db.query(`INSERT INTO incidents (sensor_id, started_at) VALUES (?, ?)`, [sensor, now + 3]);
  });

  it('deleting a sensor cascades to its results, rollups, incidents and channel links', async () => {
    const sensor = await insertSensor('cascade');
    await db.query(
      `INSERT INTO probe_results (sensor_id, ts, success, message) VALUES (?, ?, 1, 'HTTP 200')`,
      [sensor, now],
    );
    await db.query(
      `INSERT INTO rollup_hourly (sensor_id, bucket_start, count, up, latency_sum) VALUES (?, ?, 1, 1, 5)`,
      [sensor, now],
    );
    await db.query(`INSERT INTO incidents (sensor_id, started_at) VALUES (?, ?)`, [sensor, now]);
    await db.query(
      `INSERT INTO channels (name, type, created_at, updated_at) VALUES ('ops', 'webhook', ?, ?)`,
      [now, now],
    );
    const [{ id: channel }] = (await db.query('SELECT last_insert_rowid() AS id')) as { id: number }[];
    await db.query(`INSERT INTO sensor_channels (sensor_id, channel_id) VALUES (?, ?)`, [sensor, channel]);

    await db.query('DELETE FROM sensors WHERE id = ?', [sensor]);
    for (const table of ['probe_results', 'rollup_hourly', 'incidents', 'sensor_channels']) {
      const [{ n }] = (await db.query(`SELECT count(*) AS n FROM ${table} WHERE sensor_id = ?`, [
        sensor,
      ])) as { n: number }[];
      expect([table, n]).toEqual([table, 0]);
    }
    const [{ n: channels }] = (await db.query('SELECT count(*) AS n FROM channels WHERE id = ?', [
      channel,
    ])) as { n: number }[];
    expect(channels).toBe(1);
  });

  it('refuses a site with only one coordinate and a sensor with an unknown status', async () => {
    await expect(
      db.query(`INSERT INTO sites (name, lat, created_at, updated_at) VALUES ('half', 10, ?, ?)`, [now, now]),
    ).rejects.toThrow(/CHECK/);
    await db.query(
      `INSERT INTO sites (name, lat, lon, created_at, updated_at) VALUES ('null-island', 0, 0, ?, ?)`,
      [now, now],
    );
    await expect(
      db.query(
        `INSERT INTO sensors (name, type, target, status, created_at, updated_at) VALUES ('x', 'http', 't', 'sideways', ?, ?)`,
        [now, now],
      ),
    ).rejects.toThrow(/CHECK/);
  });
});

describe('storage across restarts', () => {
  it('keeps data and does not re-run migrations on the second start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-restart-'));
    try {
      const first = await startTestApp({ dataDir });
      await first.app
        .get(DataSource)
        .query(`INSERT INTO settings (key, value, updated_at) VALUES ('probe', '"kept"', 1)`);
      await first.close();
      expect(fs.existsSync(path.join(dataDir, 'monitor.db-wal'))).toBe(false);

      const second = await startTestApp({ dataDir });
      const db = second.app.get(DataSource);
      expect(await db.query(`SELECT value FROM settings WHERE key = 'probe'`)).toEqual([{ value: '"kept"' }]);
      expect(await db.query('SELECT count(*) AS n FROM migrations')).toEqual([{ n: MIGRATION_NAMES.length }]);
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
