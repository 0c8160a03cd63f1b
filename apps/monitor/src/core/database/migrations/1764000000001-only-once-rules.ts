import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['sensors', 'channels', 'maintenance_windows'];

/** The indexes this migration creates (the doctor reads them as part of the schema). */
export const declaredNameIndexes = (): string[] =>
  TABLES.map(
    (table) =>
      `CREATE UNIQUE INDEX "UQ_${table}_declared_name" ON "${table}" ("name") WHERE "managed_by" = 'config'`,
  );

/**
 * At most one row per name managed by the configuration file, in each table the file declares
 * (sites are unique by name already). Names stay free for rows made through the API. Duplicates a
 * race may have left are first released to the API, keeping the oldest under the file.
 */
export class OnlyOnceRules1764000000001 implements MigrationInterface {
  name = 'OnlyOnceRules1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const indexes = declaredNameIndexes();
    for (const [i, table] of TABLES.entries()) {
      await queryRunner.query(
        `UPDATE "${table}" SET "managed_by" = NULL WHERE "managed_by" = 'config' AND "id" NOT IN
          (SELECT min("id") FROM "${table}" WHERE "managed_by" = 'config' GROUP BY "name")`,
      );
      await queryRunner.query(indexes[i]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) await queryRunner.query(`DROP INDEX "UQ_${table}_declared_name"`);
  }
}
