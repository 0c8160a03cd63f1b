import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';

/**
 * The better-sqlite3 connection under TypeORM, for hot paths (batched result writes, rebuilding
 * runtime state) where prepared statements and synchronous transactions matter. Everything else
 * goes through TypeORM.
 */
export function sqliteHandle(dataSource: DataSource): Database.Database {
  return (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
}
