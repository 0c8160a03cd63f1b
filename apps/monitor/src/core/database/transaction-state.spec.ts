import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { StorageHealth } from './storage-health';
import { keepTransactionStateInStep } from './transaction-state';

describe('TransactionStateQueryRunner', () => {
  let dir: string;
  let file: string;
  let dataSource: DataSource;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-tx-'));
    file = path.join(dir, 'tx.db');
    dataSource = new DataSource({ type: 'better-sqlite3', database: file, enableWAL: true });
    keepTransactionStateInStep(dataSource, new StorageHealth());
    await dataSource.initialize();
    // RAISE(ROLLBACK) makes SQLite roll the whole transaction back by itself, as SQLITE_FULL does.
    await dataSource.query('CREATE TABLE t (v TEXT NOT NULL)');
    await dataSource.query(
      `CREATE TRIGGER refuse BEFORE INSERT ON t WHEN NEW.v = 'boom'
       BEGIN SELECT RAISE(ROLLBACK, 'refused by trigger'); END`,
    );
  });

  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const insert = (value: string) =>
    dataSource.transaction((manager) => manager.query('INSERT INTO t (v) VALUES (?)', [value]));

  /** What another process sees: committed rows only, and whether it can write at once. */
  function fromOutside(): { values: string[]; canWrite: boolean } {
    const other = new Database(file, { timeout: 0 });
    try {
      const values = (other.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: string }[]).map(
        (r) => r.v,
      );
      let canWrite = true;
      try {
        other.exec('BEGIN IMMEDIATE; ROLLBACK');
      } catch {
        canWrite = false;
      }
      return { values, canWrite };
    } finally {
      other.close();
    }
  }

  it('after SQLite rolled a failed transaction back itself, the next transaction really commits', async () => {
    await expect(insert('boom')).rejects.toThrow('refused by trigger');
    // Then a transaction its caller abandons (a 409 found after a write, say).
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO t (v) VALUES (?)', ['abandoned']);
        throw new Error('caller gives up');
      }),
    ).rejects.toThrow('caller gives up');
    await insert('kept');

    const db = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    expect(db.inTransaction).toBe(false);
    expect(fromOutside()).toEqual({ values: ['kept'], canWrite: true });
    await dataSource.destroy();
    expect(fromOutside().values).toEqual(['kept']);
  });

  it('a nested transaction rolled back by SQLite leaves no transaction open', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO t (v) VALUES (?)', ['outer']);
        await manager.transaction((inner) => inner.query('INSERT INTO t (v) VALUES (?)', ['boom']));
      }),
    ).rejects.toThrow();
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO t (v) VALUES (?)', ['abandoned']);
        throw new Error('caller gives up');
      }),
    ).rejects.toThrow('caller gives up');
    await insert('after');
    expect(fromOutside()).toEqual({ values: ['after'], canWrite: true });
  });

  it('keeps ordinary rollbacks and nested savepoints working', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO t (v) VALUES (?)', ['undone']);
        throw new Error('caller gives up');
      }),
    ).rejects.toThrow('caller gives up');
    await dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO t (v) VALUES (?)', ['outer']);
      await expect(
        manager.transaction(async (inner) => {
          await inner.query('INSERT INTO t (v) VALUES (?)', ['inner undone']);
          throw new Error('inner gives up');
        }),
      ).rejects.toThrow('inner gives up');
    });
    expect(fromOutside()).toEqual({ values: ['outer'], canWrite: true });
  });

  it('reports storage failures and committed writes to StorageHealth', async () => {
    const health = new StorageHealth();
    const other = new DataSource({ type: 'better-sqlite3', database: path.join(dir, 'h.db'), timeout: 50 });
    keepTransactionStateInStep(other, health);
    await other.initialize();
    try {
      await other.query('CREATE TABLE t (v TEXT)');
      health.failed('SQLITE_FULL: the disk is full', 1000);
      await other.transaction((manager) => manager.query(`INSERT INTO t VALUES ('x')`));
      expect(health.problem()).toBeNull();
      const locker = new Database(path.join(dir, 'h.db'));
      locker.exec('BEGIN EXCLUSIVE');
      try {
        await expect(other.query(`INSERT INTO t VALUES ('y')`)).rejects.toThrow();
      } finally {
        locker.exec('ROLLBACK');
        locker.close();
      }
      expect(health.problem()?.reason).toMatch(/^SQLITE_BUSY/);
    } finally {
      await other.destroy();
    }
  });
});
