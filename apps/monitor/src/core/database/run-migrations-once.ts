import { DataSource } from 'typeorm';

const ATTEMPTS = 5;

/**
 * Applies pending migrations, once even when two processes start on one new database at the same
 * moment: both read the same list of pending migrations, one applies them and the other's first
 * statement fails ("table already exists", or the lock). The loser reads the list again and finds
 * nothing left to do, or retries what is still pending. Each migration runs in its own transaction.
 */
export async function runMigrationsOnce(dataSource: DataSource): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return;
    } catch (error) {
      const pending = await dataSource.showMigrations().catch(() => true);
      if (!pending) return;
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
