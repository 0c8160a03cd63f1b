import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf, type Dialect } from '../dialect';

/** The migration's statements in a dialect (the doctor reads the PostgreSQL ones as the schema). */
export function clusterStatements(dialect: Dialect): string[] {
  const postgres = dialect === 'postgres';
  const time = postgres ? 'bigint' : 'integer';
  return [
    `CREATE TABLE "cluster_instances" ("name" text PRIMARY KEY NOT NULL, "token" text NOT NULL, "version" text NOT NULL, "started_at" ${time} NOT NULL, "last_seen_at" ${time} NOT NULL, "stopped_at" ${time})`,
    `ALTER TABLE "probe_results" ADD COLUMN "instance" text NOT NULL DEFAULT ''`,
    `ALTER TABLE "alert_outbox" ADD COLUMN "claimed_by" text`,
    `CREATE INDEX "IDX_alert_outbox_claimed" ON "alert_outbox" ("claimed_by") WHERE "finished_at" IS NULL`,
  ];
}

/**
 * Several instances on one PostgreSQL (issue 16): the instances' membership and heartbeats, the
 * instance that probed each result, and which process delivers each outbox row. SQLite gets the
 * same schema and stays single-instance.
 */
export class Cluster1764000000004 implements MigrationInterface {
  name = 'Cluster1764000000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of clusterStatements(dialectOf(queryRunner))) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_alert_outbox_claimed"`);
    await queryRunner.query(`ALTER TABLE "alert_outbox" DROP COLUMN "claimed_by"`);
    await queryRunner.query(`ALTER TABLE "probe_results" DROP COLUMN "instance"`);
    await queryRunner.query(`DROP TABLE "cluster_instances"`);
  }
}
