import { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from '../dialect';
import { POSTGRES_INITIAL_SCHEMA } from './postgres-initial-schema';

/**
 * The schema for the whole specification. Timestamps are integer milliseconds since the epoch (UTC).
 * Results and rollups are WITHOUT ROWID tables keyed by (sensor_id, time) so that "latest results of
 * one sensor" and "results of one sensor in a window" are range scans of the primary key, and each
 * stored result costs only its own bytes (no separate rowid index).
 */
export class InitialSchema1763750000000 implements MigrationInterface {
  name = 'InitialSchema1763750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (dialectOf(queryRunner) === 'postgres') {
      for (const statement of POSTGRES_INITIAL_SCHEMA) await queryRunner.query(statement);
      return;
    }
    const statements = [
      `CREATE TABLE "installation_secrets" (
        "key" varchar PRIMARY KEY NOT NULL,
        "value" text NOT NULL,
        "created_at" integer NOT NULL
      ) WITHOUT ROWID`,
      `CREATE TABLE "settings" (
        "key" varchar PRIMARY KEY NOT NULL,
        "value" text NOT NULL,
        "updated_at" integer NOT NULL
      ) WITHOUT ROWID`,
      `CREATE TABLE "users" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "username" varchar COLLATE NOCASE NOT NULL,
        "password_hash" varchar NOT NULL,
        "role" varchar NOT NULL,
        "disabled" boolean NOT NULL DEFAULT (0),
        "token_epoch" integer NOT NULL DEFAULT (0),
        "totp_secret" varchar,
        "totp_enabled" boolean NOT NULL DEFAULT (0),
        "totp_last_step" integer,
        "ui" text NOT NULL DEFAULT ('{}'),
        "tour_version" integer NOT NULL DEFAULT (0),
        "last_login_at" integer,
        "created_at" integer NOT NULL,
        "updated_at" integer NOT NULL,
        CONSTRAINT "UQ_users_username" UNIQUE ("username"),
        CONSTRAINT "CHK_users_role" CHECK ("role" IN ('admin','operator','viewer'))
      )`,
      `CREATE TABLE "recovery_codes" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "user_id" integer NOT NULL,
        "code_hash" varchar NOT NULL,
        "used_at" integer,
        CONSTRAINT "FK_recovery_codes_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE
      )`,
      `CREATE INDEX "IDX_recovery_codes_user" ON "recovery_codes" ("user_id")`,
      `CREATE TABLE "sites" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "name" varchar NOT NULL,
        "kind" varchar NOT NULL DEFAULT ('local'),
        "lat" real,
        "lon" real,
        "sample" boolean NOT NULL DEFAULT (0),
        "managed_by" varchar,
        "created_at" integer NOT NULL,
        "updated_at" integer NOT NULL,
        CONSTRAINT "UQ_sites_name" UNIQUE ("name"),
        CONSTRAINT "CHK_sites_kind" CHECK ("kind" IN ('local','external')),
        CONSTRAINT "CHK_sites_coordinates" CHECK ("lat" IS NULL AND "lon" IS NULL OR "lat" IS NOT NULL AND "lon" IS NOT NULL)
      )`,
      `CREATE TABLE "channels" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "name" varchar NOT NULL,
        "type" varchar NOT NULL,
        "config" text NOT NULL DEFAULT ('{}'),
        "enabled" boolean NOT NULL DEFAULT (1),
        "title_template" text NOT NULL DEFAULT (''),
        "body_template" text NOT NULL DEFAULT (''),
        "last_error" text NOT NULL DEFAULT (''),
        "last_error_at" integer,
        "managed_by" varchar,
        "created_at" integer NOT NULL,
        "updated_at" integer NOT NULL
      )`,
      `CREATE INDEX "IDX_channels_name" ON "channels" ("name")`,
      `CREATE TABLE "sensors" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "name" varchar NOT NULL,
        "type" varchar NOT NULL,
        "target" varchar NOT NULL,
        "interval" integer NOT NULL DEFAULT (60),
        "retries" integer NOT NULL DEFAULT (3),
        "reminder_every" integer NOT NULL DEFAULT (0),
        "group_name" varchar NOT NULL DEFAULT (''),
        "tags" text NOT NULL DEFAULT ('[]'),
        "site_id" integer,
        "parent_id" integer,
        "enabled" boolean NOT NULL DEFAULT (1),
        "options" text NOT NULL DEFAULT ('{}'),
        "sort_order" integer NOT NULL DEFAULT (0),
        "sample" boolean NOT NULL DEFAULT (0),
        "managed_by" varchar,
        "status" varchar NOT NULL DEFAULT ('unknown'),
        "message" text NOT NULL DEFAULT (''),
        "last_checked_at" integer,
        "latency_ms" real,
        "streak" integer NOT NULL DEFAULT (0),
        "status_changed_at" integer,
        "last_alert_at" integer,
        "created_at" integer NOT NULL,
        "updated_at" integer NOT NULL,
        CONSTRAINT "CHK_sensors_status" CHECK ("status" IN ('up','down','warn','unknown','paused')),
        CONSTRAINT "FK_sensors_site" FOREIGN KEY ("site_id") REFERENCES "sites" ("id") ON DELETE SET NULL,
        CONSTRAINT "FK_sensors_parent" FOREIGN KEY ("parent_id") REFERENCES "sensors" ("id") ON DELETE SET NULL
      )`,
      `CREATE INDEX "IDX_sensors_name" ON "sensors" ("name")`,
      `CREATE INDEX "IDX_sensors_site" ON "sensors" ("site_id")`,
      `CREATE INDEX "IDX_sensors_parent" ON "sensors" ("parent_id")`,
      `CREATE TABLE "sensor_channels" (
        "sensor_id" integer NOT NULL,
        "channel_id" integer NOT NULL,
        PRIMARY KEY ("sensor_id", "channel_id"),
        CONSTRAINT "FK_sensor_channels_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE,
        CONSTRAINT "FK_sensor_channels_channel" FOREIGN KEY ("channel_id") REFERENCES "channels" ("id") ON DELETE CASCADE
      ) WITHOUT ROWID`,
      `CREATE INDEX "IDX_sensor_channels_channel" ON "sensor_channels" ("channel_id")`,
      `CREATE TABLE "probe_results" (
        "sensor_id" integer NOT NULL,
        "ts" integer NOT NULL,
        "success" boolean NOT NULL,
        "status_code" integer,
        "latency_ms" real,
        "message" text NOT NULL DEFAULT (''),
        PRIMARY KEY ("sensor_id", "ts"),
        CONSTRAINT "FK_probe_results_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE
      ) WITHOUT ROWID`,
      ...['hourly', 'daily'].map(
        (tier) => `CREATE TABLE "rollup_${tier}" (
        "sensor_id" integer NOT NULL,
        "bucket_start" integer NOT NULL,
        "count" integer NOT NULL,
        "up" integer NOT NULL,
        "latency_sum" real NOT NULL,
        "latency_min" real,
        "latency_max" real,
        PRIMARY KEY ("sensor_id", "bucket_start"),
        CONSTRAINT "FK_rollup_${tier}_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE
      ) WITHOUT ROWID`,
      ),
      `CREATE TABLE "incidents" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "sensor_id" integer NOT NULL,
        "started_at" integer NOT NULL,
        "resolved_at" integer,
        "cause" text NOT NULL DEFAULT (''),
        "acknowledged" boolean NOT NULL DEFAULT (0),
        "acknowledged_by" varchar,
        "acknowledged_at" integer,
        "note" text NOT NULL DEFAULT (''),
        "reconstructed" boolean NOT NULL DEFAULT (0),
        CONSTRAINT "FK_incidents_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE
      )`,
      `CREATE INDEX "IDX_incidents_sensor_started" ON "incidents" ("sensor_id", "started_at")`,
      `CREATE INDEX "IDX_incidents_started" ON "incidents" ("started_at")`,
      // At most one open incident per sensor, and the lookup of it is one index probe.
      `CREATE UNIQUE INDEX "IDX_incidents_open" ON "incidents" ("sensor_id") WHERE "resolved_at" IS NULL`,
      `CREATE TABLE "maintenance_windows" (
        "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
        "name" varchar NOT NULL,
        "starts_at" integer NOT NULL,
        "ends_at" integer NOT NULL,
        "all_sensors" boolean NOT NULL DEFAULT (0),
        "managed_by" varchar,
        "created_at" integer NOT NULL,
        CONSTRAINT "CHK_maintenance_windows_order" CHECK ("starts_at" < "ends_at")
      )`,
      `CREATE INDEX "IDX_maintenance_windows_ends" ON "maintenance_windows" ("ends_at")`,
      `CREATE TABLE "maintenance_window_sensors" (
        "window_id" integer NOT NULL,
        "sensor_id" integer NOT NULL,
        PRIMARY KEY ("window_id", "sensor_id"),
        CONSTRAINT "FK_maintenance_window_sensors_window" FOREIGN KEY ("window_id") REFERENCES "maintenance_windows" ("id") ON DELETE CASCADE,
        CONSTRAINT "FK_maintenance_window_sensors_sensor" FOREIGN KEY ("sensor_id") REFERENCES "sensors" ("id") ON DELETE CASCADE
      ) WITHOUT ROWID`,
      `CREATE INDEX "IDX_maintenance_window_sensors_sensor" ON "maintenance_window_sensors" ("sensor_id")`,
    ];
    // One line per statement: TypeORM's SQLite schema reader parses CHECK constraints per line.
    for (const statement of statements) await queryRunner.query(oneLine(statement));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'maintenance_window_sensors',
      'maintenance_windows',
      'incidents',
      'rollup_daily',
      'rollup_hourly',
      'probe_results',
      'sensor_channels',
      'sensors',
      'channels',
      'sites',
      'recovery_codes',
      'users',
      'settings',
      'installation_secrets',
    ]) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
  }
}

const oneLine = (sql: string): string =>
  sql
    .replace(/\s*\n\s*\)/g, ')')
    .replace(/\(\s*\n\s*/g, '(')
    .replace(/\s*\n\s*/g, ' ');
