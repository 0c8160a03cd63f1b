import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { databasePath } from '../core/database/database-path';
import { openDatabase } from '../core/database/open-database';
import type { SensorRow } from './backup-row-reader';
import { replyTo, type RestoreJob } from './restore-job';

const sensor = (name: string, site = ''): SensorRow => ({
  name,
  seq: 1,
  type: 'tcp',
  target: '127.0.0.1:9',
  interval: 60,
  retries: 1,
  reminder_every: 0,
  group: '',
  tags: [],
  site,
  parent: null,
  enabled: true,
  options: {},
  channels: [],
  sort_order: 0,
  sample: false,
});

describe('the restore job (what the worker thread runs)', () => {
  let dir: string;
  let file: string;
  let spool: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-restore-job-'));
    await (await openDatabase(dir, [])).destroy();
    file = databasePath(dir);
    spool = path.join(dir, 'spool.json');
    fs.writeFileSync(spool, '{}');
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const job = (sensors: SensorRow[], busyTimeoutMs = 1000): RestoreJob => ({
    databaseFile: file,
    spool,
    plan: { sensors, ranges: {} },
    now: Date.parse('2026-11-24T12:00:00Z'),
    apiKeyRows: null,
    busyTimeoutMs,
  });
  const names = () => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT name FROM sensors ORDER BY name').all() as { name: string }[]).map(
        (s) => s.name,
      );
    } finally {
      db.close();
    }
  };

  it('writes the plan through a connection of its own and answers what changed', async () => {
    const reply = await replyTo(job([sensor('a'), sensor('b')]));
    expect(reply).toMatchObject({ ok: true, outcome: { counts: { sensors: 2 } } });
    expect(names()).toEqual(['a', 'b']);
  });

  it('answers a refused row as invalid and writes nothing of the rows before it', async () => {
    const reply = await replyTo(job([sensor('c'), sensor('d', 'nowhere')]));
    expect(reply).toEqual({
      ok: false,
      kind: 'invalid',
      message: 'sensors row 1 ("d"): site "nowhere" does not exist',
    });
    expect(names()).toEqual(['a', 'b']);
  });

  it('answers a conflict when another connection keeps the write lock past the wait', async () => {
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      expect(await replyTo(job([sensor('e')], 50))).toEqual({
        ok: false,
        kind: 'conflict',
        message: 'the database stayed busy; nothing was restored',
      });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(names()).toEqual(['a', 'b']);
  });
});
