import type Database from 'better-sqlite3';

/**
 * Resolves once no transaction is open on the shared connection. A synchronous transaction started
 * right after (with no await between) cannot join one that someone else holds open across an await.
 */
export async function connectionFree(db: Database.Database, pollMs = 2): Promise<void> {
  while (db.inTransaction) await new Promise((resolve) => setTimeout(resolve, pollMs));
}
