import type Database from 'better-sqlite3';

/**
 * Resolves once no transaction is open on the shared connection (true), or false when one stays
 * open longer than `waitMs`. A synchronous transaction started right after (with no await between)
 * cannot join one that someone else holds open across an await.
 */
export async function connectionFree(
  db: Database.Database,
  waitMs = Number.POSITIVE_INFINITY,
  pollMs = 2,
): Promise<boolean> {
  const until = Date.now() + waitMs;
  while (db.inTransaction) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}
