import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { writeAtomically } from '../core/database/write-atomically';
import { InstallationSecretEntity } from './installation-secret.entity';

/** The only code that reads or writes `installation_secrets` (one value per key). */
@Injectable()
export class InstallationSecretsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async get(key: string): Promise<string | null> {
    return (await this.dataSource.getRepository(InstallationSecretEntity).findOneBy({ key }))?.value ?? null;
  }

  /**
   * Stores `value` unless the key has one, and answers the stored value, in one transaction:
   * racing first requests end with one value.
   */
  async getOrCreate(key: string, value: string, now: number): Promise<string> {
    return writeAtomically(this.dataSource, (db) => {
      db.prepare('INSERT OR IGNORE INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)').run(
        key,
        value,
        now,
      );
      return db.prepare('SELECT value FROM installation_secrets WHERE key = ?').pluck().get(key) as string;
    });
  }

  /** Replaces several keys together, in one transaction. */
  async replace(values: Record<string, string>, now: number): Promise<void> {
    await writeAtomically(this.dataSource, (db) => {
      const replace = db.prepare(
        'INSERT OR REPLACE INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)',
      );
      for (const [key, value] of Object.entries(values)) replace.run(key, value, now);
    });
  }

  async remove(keys: string[]): Promise<void> {
    await writeAtomically(this.dataSource, (db) => {
      const remove = db.prepare('DELETE FROM installation_secrets WHERE key = ?');
      for (const key of keys) remove.run(key);
    });
  }
}
