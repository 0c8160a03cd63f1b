import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, type Dialect } from '../dialect';

/** The migration's statements in a dialect (the doctor reads the PostgreSQL ones as the schema). */
export function spentChallengeStatements(dialect: Dialect): string[] {
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return [
    `CREATE TABLE "spent_challenges" ("challenge" text PRIMARY KEY NOT NULL, "expires_at" ${time} NOT NULL)`,
    `CREATE INDEX "IDX_spent_challenges_expires" ON "spent_challenges" ("expires_at")`,
  ];
}

/**
 * Second-factor challenges a code was tried against (issue 25): one row per challenge (a hash of
 * it) until it expires, so every instance sharing the database refuses it a second time.
 */
export class SpentChallenges1764260000000 implements MigrationInterface {
  name = 'SpentChallenges1764260000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of spentChallengeStatements(dialectOf(queryRunner)))
      await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "spent_challenges"`);
  }
}
