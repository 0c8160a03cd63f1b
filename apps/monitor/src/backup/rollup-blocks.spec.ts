import { HOUR_MS } from './backup-format';
import { BLOCK_BUCKETS, type BucketRow, encodeBlocks, readRollupBlock } from './rollup-blocks';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const bucket = (
  hour: number,
  up = 60,
  sum = 1234.5,
  min: number | null = 5,
  max: number | null = 95,
): BucketRow => [T0 + hour * HOUR_MS, 60, up, sum, min, max];

/** Every bucket the blocks hold, read back the way a restore reads them. */
function decode(blocks: ReturnType<typeof encodeBlocks>): BucketRow[] {
  const rows: BucketRow[] = [];
  blocks.forEach((block, i) =>
    readRollupBlock('rollup_hourly', i, { sensor: 'web', ...block }, (...row) => rows.push(row)),
  );
  return rows;
}

describe('rollup blocks', () => {
  it('writes consecutive buckets as one block, a column that never changes as one value', () => {
    const rows = [bucket(0), bucket(1, 58, 1000.1), bucket(2)];
    const blocks = encodeBlocks(rows, HOUR_MS);
    expect(blocks).toEqual([
      {
        start: '2026-11-20T00:00:00.000Z',
        step: 3600,
        n: 3,
        count: 60,
        up: [60, 58, 60],
        latency_sum: [1234.5, 1000.1, 1234.5],
        latency_min: 5,
        latency_max: 95,
      },
    ]);
    expect(decode(blocks)).toEqual(rows);
  });

  it('writes short gaps as empty buckets and starts a new block after a long one or off the step', () => {
    const rows = [bucket(0), bucket(3), bucket(30), [T0 + 30 * HOUR_MS + 1000, 1, 1, 2, 2, 2] as BucketRow];
    const blocks = encodeBlocks(rows, HOUR_MS);
    expect(blocks.map((b) => [b.start, b.n, b.count])).toEqual([
      ['2026-11-20T00:00:00.000Z', 4, [60, 0, 0, 60]],
      ['2026-11-21T06:00:00.000Z', 1, 60],
      ['2026-11-21T06:00:01.000Z', 1, 1],
    ]);
    expect(decode(blocks)).toEqual(rows);
  });

  it('starts a new block after a month of hours, so a writer holds little at once', () => {
    const rows = Array.from({ length: 1000 }, (_, h) => bucket(h));
    const blocks = encodeBlocks(rows, HOUR_MS);
    expect(blocks.map((b) => b.n)).toEqual([BLOCK_BUCKETS, 1000 - BLOCK_BUCKETS]);
    expect(decode(blocks)).toEqual(rows);
  });

  it('keeps latencies to the microsecond, dropping float noise, and keeps nulls', () => {
    const rows = [bucket(0, 0, 0, null, null), bucket(1, 60, 0.1 + 0.2, 0.0004, 12.3456789)];
    const blocks = encodeBlocks(rows, HOUR_MS);
    expect(blocks[0]).toMatchObject({
      latency_sum: [0, 0.3],
      latency_min: [null, 0],
      latency_max: [null, 12.346],
    });
    expect(JSON.stringify(blocks)).not.toContain('0.30000000000000004');
  });

  it.each([
    [{ up: 61 }, /up\[0\] must be a whole number from 0 to count/],
    [{ count: [60] }, /count must hold n \(2\) values/],
    [{ count: -1 }, /count\[0\]/],
    // PostgreSQL stores counts as 32-bit integers: a larger one must be refused before writing.
    [{ count: 2_147_483_648, up: 0 }, /count\[0\]/],
    [{ latency_min: 9, latency_max: 5 }, /min ≤ max/],
    [{ latency_sum: 'x' }, /latency_sum\[0\]/],
    [{ latency_max: undefined }, /latency_max\[0\]/],
    [{ step: 0 }, /step must be an integer/],
    [{ start: '2026-11-20' }, /start must be an ISO 8601 time/],
    [{ sensor: '' }, /sensor must be a name/],
    [{ colour: 'red' }, /unknown field "colour"/],
  ])('refuses a block with %p', (change, error) => {
    const block = { sensor: 'web', ...encodeBlocks([bucket(0), bucket(1)], HOUR_MS)[0], ...change };
    expect(() => readRollupBlock('rollup_daily', 4, block)).toThrow(error);
    expect(() => readRollupBlock('rollup_daily', 4, block)).toThrow(/^rollup_daily row 4: /);
  });
});
