import {
  backupFileName,
  BLOCK_BUCKETS,
  type BucketRow,
  checkHeaderField,
  DAY_MS,
  encodeBlocks,
  historyCutoffs,
  HOUR_MS,
  readAccount,
  readRollupBlock,
  readSensor,
  readSite,
  safetyCopyName,
  SCHEMA_VERSION,
  sequenceByName,
} from './backup-format';

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

describe('header', () => {
  it('accepts this build’s versions and refuses another format or newer versions', () => {
    expect(() => checkHeaderField('format', 'monitor-backup')).not.toThrow();
    expect(() => checkHeaderField('format_version', 1)).not.toThrow();
    expect(() => checkHeaderField('schema_version', SCHEMA_VERSION)).not.toThrow();
    expect(() => checkHeaderField('format', 'uptime-kuma')).toThrow(/not a backup of this service/);
    expect(() => checkHeaderField('format_version', 2)).toThrow(/newer than this build reads/);
    expect(() => checkHeaderField('schema_version', SCHEMA_VERSION + 1)).toThrow(
      /newer than this build's database/,
    );
    expect(() => checkHeaderField('schema_version', '1')).toThrow(/positive integer/);
    expect(() => checkHeaderField('days', 14)).toThrow(/days/);
    expect(() => checkHeaderField('colour', 'red')).toThrow(/unknown key "colour"/);
  });

  it('names files from a constant and the time only', () => {
    const at = Date.parse('2026-11-21T13:04:05.678Z');
    expect(backupFileName(at)).toBe('monitor-backup-2026-11-21.json');
    expect(safetyCopyName('monitor.db', at)).toBe('monitor.db.before-restore-20261121T130405678Z');
  });

  it('cuts history at whole hours and days', () => {
    const at = Date.parse('2026-11-21T13:04:05Z');
    expect(historyCutoffs('all', at)).toBeNull();
    expect(historyCutoffs('7', at)).toEqual({
      hourly: Date.parse('2026-11-14T13:00:00Z'),
      daily: Date.parse('2026-11-14T00:00:00Z'),
      incidents: at - 7 * DAY_MS,
    });
  });
});

describe('rows', () => {
  it('numbers entries that share a name in the order given', () => {
    const items = [{ n: 'a' }, { n: 'b' }, { n: 'a' }];
    expect([...sequenceByName(items, (i) => i.n).values()]).toEqual([1, 1, 2]);
  });

  it('reads a sensor with defaults and references by name or by {name, seq}', () => {
    expect(
      readSensor(0, {
        name: ' web ',
        type: 'http',
        target: 'https://example.com',
        parent: { name: 'router', seq: 2 },
        channels: ['ops', { name: 'ops', seq: 2 }],
      }),
    ).toEqual({
      name: 'web',
      seq: 1,
      type: 'http',
      target: 'https://example.com',
      interval: 60,
      retries: 3,
      reminder_every: 0,
      group: '',
      tags: [],
      site: '',
      parent: { name: 'router', seq: 2 },
      enabled: true,
      options: {},
      channels: ['ops', { name: 'ops', seq: 2 }],
      sort_order: 0,
      sample: false,
    });
  });

  it.each([
    [{ interval: 0 }, /interval must be an integer from 1 to 86400/],
    [{ parent: 'web' }, /own parent/],
    [{ channels: [3] }, /channels must be a name/],
    [{ status: 'up' }, /unknown field "status"/],
    [{ target: '' }, /target must not be empty/],
  ])('refuses a sensor with %p, naming table, row and sensor', (change, error) => {
    const row = { name: 'web', type: 'http', target: 'https://example.com', ...change };
    expect(() => readSensor(3, row)).toThrow(error);
    expect(() => readSensor(3, row)).toThrow(/^sensors row 3 \("web"\): /);
  });

  it('checks accounts without echoing their secrets', () => {
    const hash = `$2b$12$${'a'.repeat(53)}`;
    const account = { username: 'ann', role: 'admin', password_hash: hash, totp_secret: 'JBSWY3DPEHPK3PXP' };
    expect(readAccount(0, account)).toMatchObject({
      username: 'ann',
      totp_enabled: false,
      recovery_codes: [],
    });
    for (const [change, error] of [
      [{ password_hash: 'plain text password' }, /password_hash must be a bcrypt hash/],
      [{ totp_enabled: true, totp_secret: null }, /totp_enabled needs a totp_secret/],
      [{ recovery_codes: [{ code_hash: 'abc' }] }, /recovery_codes\[0\]/],
      [{ role: 'root' }, /role must be one of/],
      [{ username: 'a b' }, /username/],
      // A 32-bit integer on PostgreSQL.
      [{ token_epoch: 2_147_483_648 }, /token_epoch must be an integer/],
    ] as const) {
      const refused = () => readAccount(1, { ...account, ...change });
      expect(refused).toThrow(error);
      try {
        refused();
      } catch (e) {
        expect((e as Error).message).not.toContain('plain text password');
      }
    }
  });

  it('refuses a site with only one coordinate', () => {
    expect(() => readSite(0, { name: 'Berlin', lat: 52.5 })).toThrow(/lat and lon must both be given/);
    expect(readSite(1, { name: 'Lagos', lat: 0, lon: 0 })).toMatchObject({ lat: 0, lon: 0, kind: 'local' });
  });
});
