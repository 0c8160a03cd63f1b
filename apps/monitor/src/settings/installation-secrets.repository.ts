import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../core/database/unit-of-work';

/** The only code that reads or writes `installation_secrets` (one value per key). */
@Injectable()
export class InstallationSecretsRepository {
  constructor(private readonly unit: UnitOfWork) {}

  async get(key: string): Promise<string | null> {
    const row = await this.unit.sql.get<{ value: string }>(
      'SELECT value FROM installation_secrets WHERE key = ?',
      [key],
    );
    return row?.value ?? null;
  }

  /** When the key's value was stored, or null when it has none. */
  async createdAt(key: string): Promise<number | null> {
    const row = await this.unit.sql.get<{ created_at: number | string }>(
      'SELECT created_at FROM installation_secrets WHERE key = ?',
      [key],
    );
    return row ? Number(row.created_at) : null;
  }

  /**
   * Stores `value` unless the key has one, and answers the stored value, in one transaction:
   * racing first requests end with one value.
   */
  async getOrCreate(key: string, value: string, now: number): Promise<string> {
    return this.unit.atomically(async (tx) => {
      await tx.run(
        'INSERT INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
        [key, value, now],
      );
      const row = await tx.get<{ value: string }>('SELECT value FROM installation_secrets WHERE key = ?', [
        key,
      ]);
      return row!.value;
    });
  }

  /** Replaces several keys together, in one transaction. */
  async replace(values: Record<string, string>, now: number): Promise<void> {
    await this.unit.atomically(async (tx) => {
      for (const [key, value] of Object.entries(values))
        await tx.run(
          `INSERT INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
          [key, value, now],
        );
    });
  }

  async remove(keys: string[]): Promise<void> {
    await this.unit.atomically(async (tx) => {
      for (const key of keys) await tx.run('DELETE FROM installation_secrets WHERE key = ?', [key]);
    });
  }
}
