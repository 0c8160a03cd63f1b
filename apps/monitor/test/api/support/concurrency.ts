import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Client, types } from 'pg';
import { databaseUrlFor, testBackend } from '../../support/test-database';
import { call, Headers } from './http';
import type { TestApp } from './test-app';

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** Sends every request at once and answers status and body of each, in the order given. */
export async function together<T = unknown>(
  t: TestApp,
  requests: { method: string; path: string; body?: unknown; headers?: Headers }[],
): Promise<Answer<T>[]> {
  return Promise.all(
    requests.map(async (r) => {
      const res = await call<T>(t, r.method, r.path, r.body, r.headers ?? {});
      return { status: res.status, body: res.body };
    }),
  );
}

/** How many answers had each status, e.g. `{200: 1, 409: 49}`. */
export function statusCounts(answers: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Every non-2xx answer is `{error: string}` and nothing else. */
export function expectErrorShapes(answers: Answer[]): void {
  for (const answer of answers.filter((a) => a.status >= 300)) {
    expect(Object.keys(answer.body as object)).toEqual(['error']);
    expect(typeof (answer.body as { error: unknown }).error).toBe('string');
  }
}

/** Reads the stored rows through a second, read-only connection: what is on disk, not in a cache. */
export function storedRows<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path.join(dataDir, 'monitor.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/**
 * `storedRows` on either backend, through a second connection of its own. On PostgreSQL `?` becomes
 * $n, counts come back as numbers and booleans as 1/0, so one expectation fits both.
 */
export async function readStoredRows<T>(dataDir: string, sql: string, ...params: unknown[]): Promise<T[]> {
  if (testBackend() === 'sqlite') return storedRows<T>(dataDir, sql, ...params);
  const client = new Client({ connectionString: databaseUrlFor(dataDir) });
  await client.connect();
  try {
    let n = 0;
    const result = await client.query({
      text: sql.replace(/\?/g, () => `$${++n}`),
      values: params,
      types: { getTypeParser: (oid: number) => (oid === 20 ? Number : types.getTypeParser(oid)) },
    });
    return result.rows.map(
      (row: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]),
        ) as T,
    );
  } finally {
    await client.end();
  }
}
