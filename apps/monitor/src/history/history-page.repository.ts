import { Injectable } from '@nestjs/common';
import type { Bucket } from '@monitor/domain';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient } from '../core/database/sql-client';
import { toBucket } from './history.repository';

const ROLLUP_AGGREGATES = `coalesce(sum(count), 0) AS count, coalesce(sum(up), 0) AS up,
  coalesce(sum(latency_sum), 0) AS latency_sum, min(latency_min) AS latency_min,
  max(latency_max) AS latency_max`;
/** Ids per statement: far below either backend's parameter limit. */
const IDS_PER_STATEMENT = 500;

interface ManyRow {
  sensor_id: number;
  start: number;
  count: number;
  up: number;
  latency_sum: number;
  latency_min: number | null;
  latency_max: number | null;
}

function chunks(ids: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let at = 0; at < ids.length; at += IDS_PER_STATEMENT) out.push(ids.slice(at, at + IDS_PER_STATEMENT));
  return out;
}

const marks = (ids: number[]): string => ids.map(() => '?').join(', ');

/**
 * Set-based reads of many sensors' rollups at once (a public status page shows hundreds of
 * sensors): one statement per few hundred sensors, never one per sensor.
 */
@Injectable()
export class HistoryPageRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** The sensors' daily buckets in [from, to), per sensor keyed by the bucket's start. */
  async dailyBucketsOf(
    sensorIds: readonly number[],
    from: number,
    to: number,
  ): Promise<Map<number, Map<number, Bucket>>> {
    const out = new Map<number, Map<number, Bucket>>();
    for (const ids of chunks(sensorIds)) {
      const rows = await this.sql.all<ManyRow>(
        `SELECT sensor_id, bucket_start AS start, count, up, latency_sum, latency_min, latency_max
         FROM rollup_daily WHERE sensor_id IN (${marks(ids)}) AND bucket_start >= ? AND bucket_start < ?`,
        [...ids, from, to],
      );
      for (const row of rows) {
        const id = Number(row.sensor_id);
        let days = out.get(id);
        if (!days) out.set(id, (days = new Map()));
        days.set(Number(row.start), toBucket(row));
      }
    }
    return out;
  }

  /** The sensors' hourly buckets in [from, to) merged, one bucket per sensor that has any. */
  hourlyTotalsOf(sensorIds: readonly number[], from: number, to: number): Promise<Map<number, Bucket>> {
    return this.totalsOf('rollup_hourly', sensorIds, from, to);
  }

  /** The sensors' daily buckets in [from, to) merged, one bucket per sensor that has any. */
  dailyTotalsOf(sensorIds: readonly number[], from: number, to: number): Promise<Map<number, Bucket>> {
    return this.totalsOf('rollup_daily', sensorIds, from, to);
  }

  private async totalsOf(
    table: 'rollup_hourly' | 'rollup_daily',
    sensorIds: readonly number[],
    from: number,
    to: number,
  ): Promise<Map<number, Bucket>> {
    const out = new Map<number, Bucket>();
    for (const ids of chunks(sensorIds)) {
      const rows = await this.sql.all<ManyRow>(
        `SELECT sensor_id, ${ROLLUP_AGGREGATES} FROM ${table}
         WHERE sensor_id IN (${marks(ids)}) AND bucket_start >= ? AND bucket_start < ? GROUP BY sensor_id`,
        [...ids, from, to],
      );
      for (const row of rows) out.set(Number(row.sensor_id), toBucket(row));
    }
    return out;
  }
}
