import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { APPLICATION_ID, identifyDatabaseFile } from './database-identity';
import { MIGRATION_NAMES } from './migrations';

describe('identifyDatabaseFile', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-identity-'));
    file = path.join(dir, 'monitor.db');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const make = (sql: string, applicationId = 0): void => {
    const db = new Database(file);
    db.exec(sql);
    if (applicationId) db.pragma(`application_id = ${applicationId}`);
    db.close();
  };
  const migrations = (names: readonly string[]) =>
    `CREATE TABLE migrations (id INTEGER PRIMARY KEY, timestamp INTEGER, name TEXT);` +
    names.map((name, i) => `INSERT INTO migrations (timestamp, name) VALUES (${i}, '${name}');`).join('');

  it('takes a missing file, an empty file and a database without tables as new', () => {
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'new' });
    fs.writeFileSync(file, '');
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'new' });
    fs.rmSync(file);
    make('CREATE TABLE gone (x); DROP TABLE gone;');
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'new' });
    // Another process of ours is creating it: the migrations table exists, no migration yet.
    fs.rmSync(file);
    make(migrations([]));
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'new' });
  });

  it('knows ours by the application id, and ours from before the mark by its migrations', () => {
    make('CREATE TABLE sensors (id INTEGER PRIMARY KEY);', APPLICATION_ID);
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'ours' });
    fs.rmSync(file);
    make(`CREATE TABLE sensors (id INTEGER PRIMARY KEY);${migrations(MIGRATION_NAMES)}`);
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'unmarked' });
  });

  it('names what it found in a database of another application', () => {
    make(`CREATE TABLE notes (x); CREATE TABLE users (x);`);
    expect(identifyDatabaseFile(file)).toEqual({
      kind: 'foreign',
      reason: 'application_id 0 (0x00000000), tables notes, users',
    });
    fs.rmSync(file);
    make(
      'CREATE TABLE a (x); CREATE TABLE b (x); CREATE TABLE c (x); CREATE TABLE d (x); CREATE TABLE e (x); CREATE TABLE f (x); CREATE TABLE g (x);',
    );
    expect(identifyDatabaseFile(file)).toMatchObject({
      reason: expect.stringMatching(/tables a, b, c, d, e and 2 more$/),
    });
    fs.rmSync(file);
    // Another application's id, even with no tables or with a migrations table like ours.
    make('SELECT 1;', 0x47504b47);
    expect(identifyDatabaseFile(file)).toEqual({
      kind: 'foreign',
      reason: 'application_id 1196444487 (0x47504b47), tables none',
    });
    fs.rmSync(file);
    make(migrations(['CreateUsers1600000000000']));
    expect(identifyDatabaseFile(file)).toMatchObject({ kind: 'foreign' });
  });

  it('leaves a file that is not SQLite to SQLite to refuse', () => {
    fs.writeFileSync(file, 'x'.repeat(4096));
    expect(identifyDatabaseFile(file)).toEqual({ kind: 'not-sqlite' });
  });
});
