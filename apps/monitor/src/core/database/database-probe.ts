import { Injectable } from '@nestjs/common';
import type { DoctorCheck } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { inspectDatabase } from './database-checks';
import { APPLICATION_ID } from './database-identity';
import { sqliteHandle } from './sqlite-handle';

/** Questions about the database itself (not about any feature's rows): health and self-checks. */
@Injectable()
export class DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {}

  /** Resolves when the database answers a trivial query; rejects with its error otherwise. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /**
   * One write that changes nothing (it sets the application id to the value it has), to find out
   * whether writes succeed again; false when it failed or could prove nothing (inside someone
   * else's open transaction).
   */
  tryWrite(): boolean {
    const db = sqliteHandle(this.dataSource);
    if (db.inTransaction) return false;
    try {
      db.pragma(`application_id = ${APPLICATION_ID}`);
      return true;
    } catch {
      return false;
    }
  }

  /** The `database` and `migrations` checks over the running server's connection (read only). */
  inspect(file: string): DoctorCheck[] {
    return inspectDatabase(sqliteHandle(this.dataSource), file);
  }
}
