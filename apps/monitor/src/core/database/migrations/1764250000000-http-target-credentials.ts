import { liftUrlCredentials } from '@monitor/probes';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from '../dialect';

/**
 * Http sensors stored with credentials in their target (`https://user:pass@host/`), which every
 * viewer saw, get them moved into the `basic_auth_user` and `basic_auth_password` options (issue
 * 25): the target keeps the rest of the URL and the password becomes a masked secret. The API
 * refuses such targets from now on. There is no way back: `down` leaves the rows as they are.
 */
export class HttpTargetCredentials1764250000000 implements MigrationInterface {
  name = 'HttpTargetCredentials1764250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const rows: { id: number; target: string; options: string }[] = await queryRunner.query(
      `SELECT "id", "target", "options" FROM "sensors" WHERE "type" = 'http' AND "target" LIKE '%@%'`,
    );
    const update =
      dialectOf(queryRunner) === 'postgres'
        ? `UPDATE "sensors" SET "target" = $1, "options" = $2 WHERE "id" = $3`
        : `UPDATE "sensors" SET "target" = ?, "options" = ? WHERE "id" = ?`;
    for (const row of rows) {
      let options: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(row.options);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          options = parsed as Record<string, unknown>;
      } catch {
        // An unreadable options text is left for the sensor's own validation to name.
        continue;
      }
      const lifted = liftUrlCredentials(row.target, options);
      if (lifted) await queryRunner.query(update, [lifted.target, JSON.stringify(lifted.options), row.id]);
    }
  }

  async down(): Promise<void> {
    // Credentials are never written back into a target.
  }
}
