import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

const ESCAPE = "ESCAPE '\\'";

/** `(a LIKE ? ESCAPE '\' OR b LIKE ? ...)` over the given SQL expressions. */
const anyLike = (expressions: string[]): string =>
  `(${expressions.map((e) => `${e} LIKE ? ${ESCAPE}`).join(' OR ')})`;

export interface SensorRow {
  id: number;
  name: string;
  type: string;
  target: string;
  enabled: number;
  status: string;
  last_checked_at: number | null;
}
export interface SiteRow {
  name: string;
  kind: string;
}
export interface ChannelRow {
  id: number;
  name: string;
  type: string;
  enabled: number;
  last_error_at: number | null;
}
export interface ResultRow {
  sensor_id: number;
  sensor_name: string;
  ts: number;
  success: number;
  message: string;
}
export interface UserRow {
  username: string;
  role: string;
  disabled: number;
  last_login_at: number | null;
}

/**
 * The search queries, each over an explicit list of columns. Never searched: sensor options,
 * channel config, templates, password hashes, TOTP secrets, recovery-code hashes.
 */
@Injectable()
export class SearchRepository {
  constructor(private readonly dataSource: DataSource) {}

  private query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.dataSource.query(sql, params) as Promise<T[]>;
  }

  /** Name, target, group, each tag, type and site name; dashboard order. */
  sensors(pattern: string, limit: number): Promise<SensorRow[]> {
    const where = anyLike(['s.name', 's.target', 's.group_name', 's.type', 'st.name']);
    // Each tag on its own, so JSON punctuation and neighbouring tags never take part in a match.
    const tag = `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(s.tags) THEN s.tags ELSE '[]' END) t
      WHERE t.value LIKE ? ${ESCAPE})`;
    return this.query<SensorRow>(
      `SELECT s.id, s.name, s.type, s.target, s.enabled, s.status, s.last_checked_at
       FROM sensors s LEFT JOIN sites st ON st.id = s.site_id
       WHERE ${where} OR ${tag}
       ORDER BY s.sort_order, s.id LIMIT ?`,
      [...Array<string>(6).fill(pattern), limit],
    );
  }

  sites(pattern: string, limit: number): Promise<SiteRow[]> {
    return this.query<SiteRow>(
      `SELECT name, kind FROM sites WHERE ${anyLike(['name', 'kind'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    );
  }

  channels(pattern: string, limit: number): Promise<ChannelRow[]> {
    return this.query<ChannelRow>(
      `SELECT id, name, type, enabled, last_error_at FROM channels
       WHERE ${anyLike(['name', 'type'])} ORDER BY name, id LIMIT ?`,
      [pattern, pattern, limit],
    );
  }

  /** Per sensor, its newest raw result in [from, to] whose message matches; newest first. */
  results(pattern: string, from: number, to: number, limit: number): Promise<ResultRow[]> {
    return this.query<ResultRow>(
      `SELECT r.sensor_id, s.name AS sensor_name, r.ts, r.success, r.message
       FROM (SELECT sensor_id, max(ts) AS ts FROM probe_results
             WHERE ts >= ? AND ts <= ? AND message LIKE ? ${ESCAPE}
             GROUP BY sensor_id) newest
       JOIN probe_results r ON r.sensor_id = newest.sensor_id AND r.ts = newest.ts
       JOIN sensors s ON s.id = r.sensor_id
       ORDER BY r.ts DESC, r.sensor_id LIMIT ?`,
      [from, to, pattern, limit],
    );
  }

  /** Username and role only. */
  users(pattern: string, limit: number): Promise<UserRow[]> {
    return this.query<UserRow>(
      `SELECT username, role, disabled, last_login_at FROM users
       WHERE ${anyLike(['username', 'role'])} ORDER BY username, id LIMIT ?`,
      [pattern, pattern, limit],
    );
  }
}
