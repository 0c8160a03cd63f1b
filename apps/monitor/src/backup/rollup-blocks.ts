import type { BackupColumn, BackupRef, BackupRollupBlock } from '@monitor/contracts';
import { MAX_INT32, RowReader } from './backup-row-reader';

/**
 * The compact rollup blocks of a backup: a sensor's consecutive hourly or daily buckets as one
 * row of columns, written by BlockEncoder and checked (and handed over bucket by bucket) by
 * readRollupBlock.
 */

// ---------------------------------------------------------------------------------------------
// Writing

/** A stored bucket: bucket_start, count, up, latency_sum, latency_min, latency_max. */
export type BucketRow = [number, number, number, number, number | null, number | null];

/** Latencies are kept to 1 µs: the probes measure to 10 µs, so this only drops float noise. */
export const roundLatency = (value: number | null): number | null =>
  value === null ? null : Math.round(value * 1000) / 1000;

/** Missing buckets up to this many in a row are written as gaps; a longer run starts a new block. */
const MAX_GAP = 6;

/** A block holds at most this many buckets (a month of hours), so a writer keeps little in hand. */
export const BLOCK_BUCKETS = 744;

type Block = Omit<BackupRollupBlock, 'sensor'>;

/**
 * Turns one sensor's buckets (ascending bucket_start, pushed one at a time) into blocks of
 * consecutive buckets `stepMs` apart, handing each block over as soon as it is complete. A column
 * whose values are all equal is written as one value.
 */
export class BlockEncoder {
  private columns: (number | null)[][] = [[], [], [], [], []];
  private start = 0;
  private next = 0;

  constructor(
    private readonly stepMs: number,
    private readonly emit: (block: Block) => void,
  ) {}

  push(at: number, count: number, up: number, sum: number, min: number | null, max: number | null): void {
    const held = this.columns[0].length;
    const offset = (at - this.next) / this.stepMs;
    if (held === 0 || offset % 1 !== 0 || offset < 0 || offset > MAX_GAP || held + offset >= BLOCK_BUCKETS) {
      this.flush();
      this.start = at;
    }
    // After a flush this is a fresh block.
    const columns = this.columns;
    if (columns[0].length > 0) {
      for (let gap = 0; gap < offset; gap++) {
        columns[0].push(0);
        columns[1].push(0);
        columns[2].push(0);
        columns[3].push(null);
        columns[4].push(null);
      }
    }
    columns[0].push(count);
    columns[1].push(up);
    columns[2].push(roundLatency(sum));
    columns[3].push(roundLatency(min));
    columns[4].push(roundLatency(max));
    this.next = at + this.stepMs;
  }

  /** Hands over the block in progress, if any. */
  flush(): void {
    const columns = this.columns;
    if (columns[0].length === 0) return;
    this.columns = [[], [], [], [], []];
    this.emit({
      start: new Date(this.start).toISOString(),
      step: this.stepMs / 1000,
      n: columns[0].length,
      count: collapse(columns[0]),
      up: collapse(columns[1]),
      latency_sum: collapse(columns[2]),
      latency_min: collapse(columns[3]),
      latency_max: collapse(columns[4]),
    });
  }
}

/** Every block of one sensor's buckets at once (see BlockEncoder). */
export function encodeBlocks(rows: BucketRow[], stepMs: number): Block[] {
  const blocks: Block[] = [];
  const encoder = new BlockEncoder(stepMs, (block) => blocks.push(block));
  for (const row of rows) encoder.push(...row);
  encoder.flush();
  return blocks;
}

const collapse = (values: (number | null)[]): BackupColumn =>
  values.every((v) => v === values[0]) ? values[0] : values;

/** Most buckets one block may hold (ten years of hours). */
export const MAX_BLOCK_BUCKETS = 87_600;

/** A checked rollup block: how many buckets it holds (gaps left out) and the time span it covers. */
export interface DecodedBlock {
  sensor: BackupRef;
  first: number;
  last: number;
  buckets: number;
}

/** Receives each bucket of a block (gaps left out). */
export type BucketSink = (
  start: number,
  count: number,
  up: number,
  sum: number,
  min: number | null,
  max: number | null,
) => void;

// ---------------------------------------------------------------------------------------------
// Reading

const COLUMNS = ['count', 'up', 'latency_sum', 'latency_min', 'latency_max'] as const;

/** Checks a block; with `sink`, hands it every bucket. */
export function readRollupBlock(table: string, index: number, row: unknown, sink?: BucketSink): DecodedBlock {
  const r = new RowReader(table, index, row);
  const sensor = r.ref('sensor');
  const start = r.time('start');
  const step = r.int('step', 1, 366 * 86_400);
  const n = r.int('n', 1, MAX_BLOCK_BUCKETS);
  const columns = COLUMNS.map((name) => {
    const value = r.raw(name);
    if (Array.isArray(value) && value.length !== n) throw r.fail(`${name} must hold n (${n}) values`);
    return value;
  });
  r.done();
  // The loop below touches no globals (Array, Number…): a restore checks millions of buckets.
  const [counts, ups, sums, mins, maxes] = columns.map((c) => (Array.isArray(c) ? (c as unknown[]) : null));
  const [count0, up0, sum0, min0, max0] = columns;
  const stepMs = step * 1000;
  let buckets = 0;
  for (let i = 0; i < n; i++) {
    const count = counts === null ? count0 : counts[i];
    const up = ups === null ? up0 : ups[i];
    const sum = sums === null ? sum0 : sums[i];
    const min = mins === null ? min0 : mins[i];
    const max = maxes === null ? max0 : maxes[i];
    if (!isWhole(count)) throw r.fail(`count[${i}] must be a whole number (0 marks a gap)`);
    if (count === 0) continue;
    if (!isWhole(up) || up > count) throw r.fail(`up[${i}] must be a whole number from 0 to count`);
    if (!isLatency(sum) || sum === null) throw r.fail(`latency_sum[${i}] must be a number of at least 0`);
    if (!isLatency(min) || !isLatency(max) || (min !== null && max !== null && min > max))
      throw r.fail(`latency_min[${i}] and latency_max[${i}] must be numbers (min ≤ max) or null`);
    buckets++;
    if (sink !== undefined) sink(start + i * stepMs, count, up, sum, min, max);
  }
  return { sensor, first: start, last: start + (n - 1) * stepMs, buckets };
}

/** Counts are 32-bit integer columns on PostgreSQL. */
const MAX_WHOLE = MAX_INT32;
const isWhole = (value: unknown): value is number =>
  typeof value === 'number' && value >= 0 && value <= MAX_WHOLE && value % 1 === 0;

/** null, or a finite number of at least 0 (`value - value` is NaN for the infinities). */
const isLatency = (value: unknown): value is number | null =>
  value === null || (typeof value === 'number' && value >= 0 && value - value === 0);
