import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { apiKeyRows } from '../../src/backup/api-key-rows';
import { backupDocument } from '../../src/backup/backup-document';
import { BackupService } from '../../src/backup/backup.service';
import { JsonTableScanner } from '../../src/backup/json-table-scanner';
import type { PlanData } from '../../src/backup/restore-apply';
import { planData, runRestoreJob } from '../../src/backup/restore-job';
import { RestorePlan } from '../../src/backup/restore-plan';
import { restoreIntoPostgres, safetyDocumentName } from '../../src/backup/restore-postgres';
import { SystemClock } from '../../src/core/clock/clock';
import type { MonitorConfig } from '../../src/core/config/monitor-config';
import { BackupConnections } from '../../src/core/database/backup-connections';
import { openStorage, type OpenedStorage } from '../../src/core/database/copy-database';
import { databasePath } from '../../src/core/database/database-path';
import { openReadSnapshot } from '../../src/core/database/own-connection';
import { openPostgres } from '../../src/core/database/open-postgres';
import type { SqlClient } from '../../src/core/database/sql-client';
import type { InstallationSecretsService } from '../../src/settings/installation-secrets.service';
import { createLogger } from '../../src/core/logging/logger';
import { PgCluster, startPostgresCluster } from '../support/postgres-cluster';
import { runCli, tempDir } from '../support/server-process';

jest.setTimeout(180_000);

const NOW = Date.parse('2026-11-25T01:05:00Z');
const BCRYPT = `$2b$10$${'a'.repeat(53)}`;
const API_KEY = 'mk_restore_round_trip_0123456789abcdef';

let cluster: PgCluster;
const opened: OpenedStorage[] = [];
let sampleDir: string;
let sample: OpenedStorage;
let sampleDocument: string;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  sampleDir = tempDir();
  const seeded = await runCli(['seed', '--demo', '--data-dir', sampleDir], { timeoutMs: 60_000 });
  expect(seeded.code).toBe(0);
  sample = await open({ dataDir: sampleDir });
  await fillTheRest(sample.client);
  sampleDocument = await exportFrom(sample.client);
});
afterAll(async () => {
  for (const storage of opened) await storage.close().catch(() => undefined);
  await cluster.stop();
});

async function open(where: { url: string } | { dataDir: string }): Promise<OpenedStorage> {
  const storage = await openStorage(where);
  opened.push(storage);
  return storage;
}

/**
 * What the sample data leaves empty: accounts with recovery codes, channels (two of one name),
 * sensors' channel links, settings, and rollups with fractions and missing latencies.
 */
async function fillTheRest(client: SqlClient): Promise<void> {
  const t = NOW - 86_400_000;
  await client.run(
    `INSERT INTO users (username, password_hash, role, disabled, token_epoch, totp_secret, totp_enabled,
       totp_last_step, ui, tour_version, last_login_at, created_at, updated_at)
     VALUES ('Admin', ?, 'admin', ?, 3, 'JBSWY3DPEHPK3PXP', ?, 1234, '{"lang":"de"}', 2, ?, ?, ?),
            ('viewer', ?, 'viewer', ?, 0, NULL, ?, NULL, '{}', 0, NULL, ?, ?)`,
    [BCRYPT, false, true, t + 5, t, t, BCRYPT, true, false, t + 1, t + 1],
  );
  await client.run(
    `INSERT INTO recovery_codes (user_id, code_hash, used_at)
     SELECT id, ?, NULL FROM users WHERE username = 'Admin'
     UNION ALL SELECT id, ?, ? FROM users WHERE username = 'Admin'`,
    ['a'.repeat(64), 'b'.repeat(64), t + 9],
  );
  for (const [name, enabled] of [
    ['ops', true],
    ['ops', false],
    ['mail', true],
  ] as const)
    await client.run(
      `INSERT INTO channels (name, type, config, enabled, title_template, body_template, created_at, updated_at)
       VALUES (?, 'webhook', '{"url":"http://127.0.0.1:9/hook"}', ?, 'T {{sensor}}', '', ?, ?)`,
      [name, enabled, t, t],
    );
  await client.run(
    `INSERT INTO sensor_channels (sensor_id, channel_id)
     SELECT s.id, c.id FROM sensors s, channels c WHERE s.id % 2 = c.id % 2`,
  );
  await client.run(
    `INSERT INTO settings (key, value, updated_at) VALUES ('retention.raw_days', '14', ?), ('map', '{"zoom":3.5}', ?)`,
    [t, t],
  );
  const sensors = await client.all<{ id: number }>('SELECT id FROM sensors ORDER BY id');
  // A status page with two sections (sensors out of id order) and two announcements.
  const page = await client.get<{ id: number }>(
    `INSERT INTO status_pages (slug, title, description, published, show_uptime, history_days, footer,
       language, managed_by, created_at, updated_at)
     VALUES ('status', 'Status', 'All of it', ?, ?, 60, 'Ops', 'de', NULL, ?, ?) RETURNING id`,
    [true, false, t, t],
  );
  for (const [position, title, ids] of [
    [0, 'Second first', [sensors[2].id, sensors[0].id]],
    [1, '', [sensors[1].id]],
  ] as const) {
    const section = await client.get<{ id: number }>(
      'INSERT INTO status_page_sections (page_id, position, title) VALUES (?, ?, ?) RETURNING id',
      [page!.id, position, title],
    );
    for (const [index, sensorId] of ids.entries())
      await client.run('INSERT INTO status_page_sensors (section_id, sensor_id, position) VALUES (?, ?, ?)', [
        section!.id,
        sensorId,
        index,
      ]);
  }
  await client.run(
    `INSERT INTO status_page_announcements (page_id, title, body, severity, created_at)
     VALUES (?, 'Old', 'Resolved.', 'info', ?), (?, 'New', '', 'critical', ?)`,
    [page!.id, t, page!.id, t + 60_000],
  );
  for (const [tier, step, n] of [
    ['rollup_hourly', 3_600_000, 50],
    ['rollup_daily', 86_400_000, 12],
  ] as const)
    for (const { id } of sensors)
      for (let i = 0; i < n; i++) {
        // Gaps now and then, so the blocks split.
        if ((i + id) % 17 === 0) continue;
        const start = Math.floor((t - i * step) / step) * step;
        const up = i % 5 === 0 ? 0 : 10;
        await client.run(
          `INSERT INTO ${tier} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
           VALUES (?, ?, 10, ?, ?, ?, ?)`,
          [
            id,
            start,
            up,
            up === 0 ? 0 : 123.456 + i / 3,
            up === 0 ? null : 1.25,
            up === 0 ? null : 40.125 + id,
          ],
        );
      }
}

/** The whole backup document (history, every day), read in one snapshot. */
async function exportFrom(client: SqlClient): Promise<string> {
  const snapshot = await openReadSnapshot(client);
  let text = '';
  try {
    for await (const piece of backupDocument(snapshot.tx, {
      scope: 'history',
      days: 'all',
      now: NOW,
      apiKey: API_KEY,
      counts: {},
    }))
      text += piece;
  } finally {
    await snapshot.close();
  }
  return text;
}

/** A document checked as the restore route checks it, and spooled to a file. */
function checked(text: string): { plan: PlanData; spool: string } {
  const spool = path.join(tempDir(), 'spool.json');
  fs.writeFileSync(spool, text);
  const plan = new RestorePlan({ channel: () => undefined, sensor: () => undefined });
  const scanner = new JsonTableScanner(plan);
  scanner.feed(Buffer.from(text));
  scanner.end();
  plan.finish();
  return { plan: planData(plan), spool };
}

const keyRows = () => apiKeyRows(randomBytes(32), API_KEY);

function restorePg(client: SqlClient, text: string, dataDir: string) {
  return restoreIntoPostgres(
    client,
    { ...checked(text), now: NOW, apiKeyRows: keyRows() },
    { dataDir, apiKey: API_KEY, openSnapshot: () => openReadSnapshot(client) },
  );
}

async function freshPg(): Promise<OpenedStorage> {
  return open({ url: await cluster.createDatabase() });
}

/** Each restore puts every restored account's token epoch one past the document's (sessions end). */
function withEpochsPast(document: string, restores: number): string {
  return document.replace(
    /"token_epoch":(\d+)/g,
    (_, epoch: string) => `"token_epoch":${Number(epoch) + restores}`,
  );
}

describe('backup and restore across backends', () => {
  it('restores a SQLite backup into PostgreSQL and back into a fresh SQLite, the document unchanged but for the token epochs', async () => {
    const parsed = JSON.parse(sampleDocument) as Record<string, unknown[]>;
    // The sample installation fills every table the document carries.
    for (const table of [
      'sites',
      'channels',
      'sensors',
      'status_pages',
      'accounts',
      'incidents',
      'rollup_hourly',
      'rollup_daily',
    ])
      expect(parsed[table].length).toBeGreaterThan(0);

    const pg = await freshPg();
    const dataDir = tempDir();
    const { safetyCopy, outcome } = await restorePg(pg.client, sampleDocument, dataDir);
    expect(outcome.counts.sensors).toBe(parsed.sensors.length);
    expect(safetyCopy).toBe(safetyDocumentName(NOW));
    expect(safetyCopy).toMatch(/^monitor-before-restore-2026-11-25T01-05-00Z\.json$/);
    expect(await exportFrom(pg.client)).toBe(withEpochsPast(sampleDocument, 1));
    const [secret] = await pg.client.all<{ value: string }>(
      "SELECT value FROM installation_secrets WHERE key = 'api_key_hash'",
    );
    expect(secret.value).toBe(keyRows().hash);

    const backDir = tempDir();
    const back = await open({ dataDir: backDir });
    const fromPg = await exportFrom(pg.client);
    const { spool, plan } = checked(fromPg);
    await runRestoreJob({
      databaseFile: databasePath(backDir),
      spool,
      plan,
      now: NOW,
      apiKeyRows: keyRows(),
      busyTimeoutMs: 5000,
    });
    expect(await exportFrom(back.client)).toBe(withEpochsPast(sampleDocument, 2));
  });

  it('writes the safety document of the state before the restore into the data directory first', async () => {
    const pg = await freshPg();
    const dataDir = tempDir();
    await restorePg(pg.client, sampleDocument, dataDir);
    const before = await exportFrom(pg.client);

    // A second document: one sensor fewer, another renamed.
    const changed = JSON.parse(sampleDocument) as { sensors: { name: string }[] } & Record<string, unknown>;
    const { safetyCopy } = await restorePg(pg.client, JSON.stringify(minusFirstSensor(changed)), dataDir);
    // The same second as the first restore's safety document: the name gets a number.
    expect(safetyCopy).toBe(safetyDocumentName(NOW).replace(/\.json$/, '-2.json'));
    expect(fs.readFileSync(path.join(dataDir, safetyCopy), 'utf8')).toBe(before);
    expect((fs.statSync(path.join(dataDir, safetyCopy)).mode & 0o777).toString(8)).toBe('600');
    expect(await exportFrom(pg.client)).not.toBe(before);
  });

  it('does not restore when the safety document cannot be written, and changes nothing', async () => {
    const pg = await freshPg();
    await restorePg(pg.client, sampleDocument, tempDir());
    const before = await exportFrom(pg.client);
    // A file where the data directory should be.
    const inTheWay = path.join(tempDir(), 'not-a-directory');
    fs.writeFileSync(inTheWay, '');
    const changed = minusFirstSensor(JSON.parse(sampleDocument) as Record<string, unknown>);
    await expect(restorePg(pg.client, JSON.stringify(changed), inTheWay)).rejects.toThrow(
      `restore refused: the safety copy ${safetyDocumentName(NOW)} could not be written in the data directory (ENOTDIR); nothing was changed`,
    );
    expect(await exportFrom(pg.client)).toBe(before);
  });

  it('leaves everything as it was when a row of the last table fails half-way', async () => {
    const pg = await freshPg();
    const dataDir = tempDir();
    await restorePg(pg.client, sampleDocument, dataDir);
    const before = await exportFrom(pg.client);
    // The database itself refuses one bucket of the document's last block, after every other
    // table was already replaced in the transaction.
    await pg.client.run(
      `CREATE FUNCTION refuse_bucket() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'refused bucket' USING ERRCODE = '23514'; END $$`,
    );
    await pg.client.run(
      `CREATE TRIGGER refuse_bucket BEFORE INSERT ON rollup_daily FOR EACH ROW
       WHEN (NEW.latency_max = 99999.5) EXECUTE FUNCTION refuse_bucket()`,
    );
    const bad = minusFirstSensor(JSON.parse(sampleDocument) as Record<string, unknown>) as Record<
      string,
      { latency_max: unknown }[]
    >;
    const last = bad.rollup_daily[bad.rollup_daily.length - 1];
    last.latency_max = Array.isArray(last.latency_max)
      ? [...(last.latency_max as number[]).slice(0, -1), 99999.5]
      : 99999.5;
    await expect(restorePg(pg.client, JSON.stringify(bad), dataDir)).rejects.toThrow('refused bucket');
    expect(await exportFrom(pg.client)).toBe(before);
  });

  it('ends the backup snapshot when the download is dropped before its first chunk', async () => {
    const url = await cluster.createDatabase();
    const dataSource = await openPostgres(url, []);
    try {
      const service = new BackupService(
        new BackupConnections(dataSource, { data_dir: tempDir() } as MonitorConfig),
        // The installation secrets' own storage is not this test's concern: no API key.
        { apiKey: () => Promise.resolve(null) } as unknown as InstallationSecretsService,
        new SystemClock(),
        createLogger('error'),
      );
      // Sessions of this database holding a transaction open while idle: the snapshot's.
      const inTransaction = async () =>
        (
          await pgRows<{ n: number }>(
            dataSource,
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'idle in transaction'`,
          )
        )[0].n;
      const { stream } = await service.open('config', 'all');
      expect(await inTransaction()).toBe(1);
      stream.destroy();
      for (let i = 0; i < 100 && (await inTransaction()) > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await inTransaction()).toBe(0);
    } finally {
      await dataSource.destroy();
    }
  });
});

function pgRows<T>(dataSource: { query(sql: string): Promise<unknown> }, sql: string): Promise<T[]> {
  return dataSource.query(sql) as Promise<T[]>;
}

/** The document without its first sensor (and that sensor's history, child links and places on status pages). */
function minusFirstSensor<T extends Record<string, unknown>>(document: T): T {
  type Ref = string | { name: string };
  const nameOf = (ref: Ref | null) => (ref === null ? null : typeof ref === 'string' ? ref : ref.name);
  const copy = structuredClone(document) as Record<string, unknown[]>;
  const sensors = copy.sensors as { name: string; parent: Ref | null }[];
  const gone = sensors.shift()!.name;
  const keeps = (row: unknown) => nameOf((row as { sensor: Ref }).sensor) !== gone;
  for (const s of sensors) if (nameOf(s.parent) === gone) s.parent = null;
  for (const table of ['incidents', 'rollup_hourly', 'rollup_daily']) copy[table] = copy[table].filter(keeps);
  for (const page of copy.status_pages as { sections: { sensors: Ref[] }[] }[])
    for (const section of page.sections)
      section.sensors = section.sensors.filter((ref) => nameOf(ref) !== gone);
  return copy as T;
}
