import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The alert outbox: one row per alert and channel, written in the same transaction as the state
 * change that causes the alert and marked finished once its delivery has ended, so an alert
 * interrupted by a crash is sent at the next start.
 */
export class AlertOutbox1764000000002 implements MigrationInterface {
  name = 'AlertOutbox1764000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "alert_outbox" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "sensor_id" integer NOT NULL, "channel_id" integer NOT NULL, "kind" varchar NOT NULL, "payload" text NOT NULL, "created_at" integer NOT NULL, "finished_at" integer, "error" text, CONSTRAINT "CHK_alert_outbox_kind" CHECK ("kind" IN ('down','up','reminder')), CONSTRAINT "FK_alert_outbox_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE, CONSTRAINT "FK_alert_outbox_channel" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_alert_outbox_finished" ON "alert_outbox" ("finished_at")`);
    await queryRunner.query(`CREATE INDEX "IDX_alert_outbox_sensor" ON "alert_outbox" ("sensor_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_alert_outbox_channel" ON "alert_outbox" ("channel_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "alert_outbox"`);
  }
}
