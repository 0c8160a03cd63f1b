import { Injectable } from '@nestjs/common';
import { HOUR_MS } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { RollupMaintenance } from './rollup-maintenance.service';

export interface ResultStats {
  count: number;
  oldest: number | null;
  newest: number | null;
}

/**
 * How many raw results are stored, without walking millions of rows: per sensor, the hours the
 * maintenance pass has summarised are counted from their hourly buckets (each holds exactly that
 * hour's results), and only the partial first hour and what came after the last pass are counted
 * row by row.
 */
@Injectable()
export class HistoryStats {
  private statements?: Record<'ids' | 'first' | 'last' | 'rows' | 'summarised', Database.Statement>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly rollups: RollupMaintenance,
  ) {}

  results(): ResultStats {
    const s = this.prepare();
    const through = this.rollups.watermarks().hourlyThrough;
    const stats: ResultStats = { count: 0, oldest: null, newest: null };
    for (const id of s.ids.all() as number[]) {
      const first = s.first.get(id) as number | undefined;
      if (first === undefined) continue;
      const last = s.last.get(id) as number;
      stats.oldest = Math.min(stats.oldest ?? first, first);
      stats.newest = Math.max(stats.newest ?? last, last);
      const fullHours = Math.ceil(first / HOUR_MS) * HOUR_MS;
      if (through === null || fullHours >= through) {
        stats.count += s.rows.get(id, first, Number.MAX_SAFE_INTEGER) as number;
      } else {
        stats.count +=
          (s.rows.get(id, first, fullHours) as number) +
          (s.summarised.get(id, fullHours, through) as number) +
          (s.rows.get(id, through, Number.MAX_SAFE_INTEGER) as number);
      }
    }
    return stats;
  }

  private prepare() {
    if (this.statements) return this.statements;
    const db = sqliteHandle(this.dataSource);
    this.statements = {
      ids: db.prepare('SELECT id FROM sensors').pluck(),
      first: db.prepare('SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts LIMIT 1').pluck(),
      last: db.prepare('SELECT ts FROM probe_results WHERE sensor_id = ? ORDER BY ts DESC LIMIT 1').pluck(),
      rows: db
        .prepare('SELECT count(*) FROM probe_results WHERE sensor_id = ? AND ts >= ? AND ts < ?')
        .pluck(),
      summarised: db
        .prepare(
          'SELECT coalesce(sum(count), 0) FROM rollup_hourly WHERE sensor_id = ? AND bucket_start >= ? AND bucket_start < ?',
        )
        .pluck(),
    };
    return this.statements;
  }
}
