import type { SqlExecutor } from './sql-client';
import { countWhereIn, placeholdersFor, releaseManagedRows } from './where-in';

/** Records every statement and answers `get` with `answer`. */
function recorder(answer?: unknown): { tx: SqlExecutor; calls: [string, readonly unknown[] | undefined][] } {
  const calls: [string, readonly unknown[] | undefined][] = [];
  const tx = {
    dialect: 'sqlite',
    all: () => Promise.resolve([]),
    get: (sql: string, params?: readonly unknown[]) => {
      calls.push([sql, params]);
      return Promise.resolve(answer);
    },
    run: (sql: string, params?: readonly unknown[]) => {
      calls.push([sql, params]);
      return Promise.resolve({ changes: 0 });
    },
  } as unknown as SqlExecutor;
  return { tx, calls };
}

describe('placeholdersFor', () => {
  it('gives one placeholder per value', () => {
    expect(placeholdersFor([])).toBe('');
    expect(placeholdersFor([7])).toBe('?');
    expect(placeholdersFor(['a', 'b', 'c'])).toBe('?, ?, ?');
  });
});

describe('countWhereIn', () => {
  it('counts the rows whose column is in the list', async () => {
    const { tx, calls } = recorder({ n: '2' });
    await expect(countWhereIn(tx, 'incidents', 'sensor_id', [4, 5])).resolves.toBe(2);
    expect(calls).toEqual([['SELECT count(*) AS n FROM incidents WHERE sensor_id IN (?, ?)', [4, 5]]]);
  });

  it('answers 0 without a statement for an empty list', async () => {
    const { tx, calls } = recorder();
    await expect(countWhereIn(tx, 'sensors', 'id', [])).resolves.toBe(0);
    expect(calls).toEqual([]);
  });

  it('answers 0 when the backend returns no row', async () => {
    const { tx } = recorder(undefined);
    await expect(countWhereIn(tx, 'sensors', 'id', [1])).resolves.toBe(0);
  });
});

describe('releaseManagedRows', () => {
  it('releases every managed row but the kept ones', async () => {
    const { tx, calls } = recorder();
    await releaseManagedRows(tx, 'sites', 'config', [3, 9]);
    expect(calls).toEqual([
      ['UPDATE sites SET managed_by = NULL WHERE managed_by = ? AND id NOT IN (?, ?)', ['config', 3, 9]],
    ]);
  });

  it('releases every managed row when none is kept', async () => {
    const { tx, calls } = recorder();
    await releaseManagedRows(tx, 'channels', 'config', []);
    expect(calls).toEqual([['UPDATE channels SET managed_by = NULL WHERE managed_by = ?', ['config']]]);
  });
});
