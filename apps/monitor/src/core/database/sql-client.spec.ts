import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { isUniqueViolationError, likeFragment, SqliteClient, toPositional } from './sql-client';

describe('toPositional', () => {
  it('numbers the placeholders and leaves literals, identifiers and comments alone', () => {
    expect(toPositional('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)',
    );
    expect(toPositional(`SELECT '?', "col?" FROM t WHERE x = ? -- why?\nAND y = ?`)).toBe(
      `SELECT '?', "col?" FROM t WHERE x = $1 -- why?\nAND y = $2`,
    );
    expect(toPositional(`SELECT 'it''s ?' WHERE z = ?`)).toBe(`SELECT 'it''s ?' WHERE z = $1`);
  });
});

describe('SqliteClient on a real file', () => {
  let dir: string;
  let db: Database.Database;
  let client: SqliteClient;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sql-client-'));
    db = new Database(path.join(dir, 'test.db'));
    db.exec(`CREATE TABLE t (id integer PRIMARY KEY AUTOINCREMENT, name text UNIQUE, on_ boolean NOT NULL)`);
    client = new SqliteClient(db);
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('binds booleans as 1/0 and reads rows, one row and changes', async () => {
    const inserted = await client.all<{ id: number }>(
      'INSERT INTO t (name, on_) VALUES (?, ?) RETURNING id',
      ['a', true],
    );
    expect(inserted).toEqual([{ id: 1 }]);
    await client.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['b', false]);
    expect(await client.get('SELECT name, on_ FROM t WHERE on_ = ?', [false])).toEqual({ name: 'b', on_: 0 });
    expect(await client.run('UPDATE t SET on_ = ?', [true])).toEqual({ changes: 2 });
    expect(await client.get('SELECT name FROM t WHERE name = ?', ['none'])).toBeUndefined();
  });

  it('commits a transaction whole and rolls a failed one back whole', async () => {
    await client.transaction(async (tx) => {
      await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['a', true]);
      await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['b', true]);
    });
    const failed = client.transaction(async (tx) => {
      await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['c', true]);
      await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['a', true]);
    });
    const error: unknown = await failed.catch((e: unknown) => e);
    expect(isUniqueViolationError(error)).toBe(true);
    expect((await client.all<{ name: string }>('SELECT name FROM t ORDER BY id')).map((r) => r.name)).toEqual(
      ['a', 'b'],
    );
    expect(db.inTransaction).toBe(false);
  });

  it('makes a statement outside an open transaction wait for it instead of joining it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const transaction = client.transaction(async (tx) => {
      await tx.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['in-tx', true]);
      await gate;
      order.push('tx ends');
      throw new Error('abandon');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const outside = client.run('INSERT INTO t (name, on_) VALUES (?, ?)', ['outside', true]).then(() => {
      order.push('outside written');
    });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(transaction).rejects.toThrow('abandon');
    await outside;
    expect(order).toEqual(['tx ends', 'outside written']);
    // The rollback took only the transaction's own row.
    expect(await client.all('SELECT name FROM t')).toEqual([{ name: 'outside' }]);
  });

  it('matches LIKE without case for ASCII letters only', async () => {
    await client.run('INSERT INTO t (name, on_) VALUES (?, ?), (?, ?)', ['Backup Ä', true, 'other', true]);
    const sql = `SELECT name FROM t WHERE ${likeFragment('sqlite', 'name')}`;
    expect(await client.all(sql, ['%backup%'])).toEqual([{ name: 'Backup Ä' }]);
    expect(await client.all(sql, ['%ä%'])).toEqual([]);
  });
});
