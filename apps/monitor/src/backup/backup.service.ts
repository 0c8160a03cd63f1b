import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type {
  BackupAccount,
  BackupChannel,
  BackupDays,
  BackupIncident,
  BackupScope,
  BackupSensor,
  BackupSite,
  BackupTable,
} from '@monitor/contracts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION } from '@monitor/contracts';
import Database from 'better-sqlite3';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { databasePath } from '../core/database/database-path';
import { BUSY_TIMEOUT_MS } from '../core/database/open-database';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import {
  backupFileName,
  type BucketRow,
  BlockEncoder,
  DAY_MS,
  historyCutoffs,
  HOUR_MS,
  isBookkeepingSetting,
  isoOrNull,
  refOf,
  SCHEMA_VERSION,
  sequenceByName,
} from './backup-format';
import { LoopTurns } from './loop-turns';

/** Pieces are gathered to about this many bytes before they go out. */
const CHUNK_BYTES = 64 * 1024;

type Row = Record<string, unknown>;

/**
 * Writes the backup document as a stream. It reads through a connection of its own inside one
 * read transaction, so the document is one consistent snapshot while the server goes on writing;
 * rollups are read and written a sensor at a time, so memory stays flat whatever the history.
 */
@Injectable()
export class BackupService {
  constructor(
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly secrets: InstallationSecretsService,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async open(scope: BackupScope, days: BackupDays): Promise<{ fileName: string; stream: Readable }> {
    const now = this.clock.now();
    const apiKey = await this.secrets.apiKey();
    const db = new Database(databasePath(this.config.data_dir), { readonly: true, fileMustExist: true });
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.exec('BEGIN');
      // The snapshot is taken by the first read, here: everything after sees the same state.
      db.prepare('SELECT count(*) FROM sensors').get();
    } catch (error) {
      db.close();
      throw error;
    }
    const counts: Partial<Record<BackupTable, number>> = {};
    const pieces = this.document(db, { scope, days, now, apiKey, counts });
    const logger = this.logger;
    async function* chunks(): AsyncGenerator<Buffer> {
      let bytes = 0;
      let complete = false;
      try {
        let buffered: string[] = [];
        let size = 0;
        // A fast client drains every chunk at once, so without turns the whole document would be
        // written in one go, holding every other request and probe for seconds.
        const turns = new LoopTurns();
        for (const piece of pieces) {
          buffered.push(piece);
          size += piece.length;
          if (size >= CHUNK_BYTES) {
            const chunk = Buffer.from(buffered.join(''));
            bytes += chunk.length;
            buffered = [];
            size = 0;
            yield chunk;
          }
          await turns.maybe();
        }
        const last = Buffer.from(buffered.join(''));
        bytes += last.length;
        yield last;
        complete = true;
      } finally {
        db.close();
        // Row counts only: nothing of the contents.
        if (complete)
          logger.info({ scope, days: scope === 'history' ? days : undefined, counts, bytes }, 'backup');
        else logger.warn({ scope, counts, bytes }, 'backup stopped before the end');
      }
    }
    return { fileName: backupFileName(now), stream: Readable.from(chunks(), { objectMode: false }) };
  }

  /** The document, piece by piece. */
  private *document(
    db: Database.Database,
    options: {
      scope: BackupScope;
      days: BackupDays;
      now: number;
      apiKey: string | null;
      counts: Partial<Record<BackupTable, number>>;
    },
  ): Generator<string> {
    const { scope, days, now, counts } = options;
    const header: Row = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      schema_version: SCHEMA_VERSION,
      created_at: new Date(now).toISOString(),
      scope,
      ...(scope === 'history' ? { days: days === 'all' ? 'all' : Number(days) } : {}),
    };
    yield JSON.stringify(header).slice(0, -1);

    const settings: Row = {};
    for (const { key, value } of db.prepare('SELECT key, value FROM settings ORDER BY key').all() as {
      key: string;
      value: string;
    }[]) {
      if (!isBookkeepingSetting(key)) settings[key] = parseOr(value, value);
    }
    counts.settings = Object.keys(settings).length;
    yield `,\n"settings":${JSON.stringify(settings)}`;
    counts.api_key = options.apiKey === null ? 0 : 1;
    yield `,\n"api_key":${JSON.stringify(options.apiKey)}`;

    // Sites
    const sites = db
      .prepare('SELECT id, name, kind, lat, lon, sample FROM sites ORDER BY name, id')
      .all() as Row[];
    const siteNames = new Map(sites.map((s) => [s.id as number, s.name as string]));
    yield* table(
      'sites',
      sites,
      (s): BackupSite => ({
        name: s.name as string,
        kind: s.kind as BackupSite['kind'],
        lat: s.lat as number | null,
        lon: s.lon as number | null,
        sample: s.sample === 1,
      }),
      counts,
    );

    // Channels
    const channels = db.prepare('SELECT * FROM channels ORDER BY id').all() as Row[];
    const channelSeq = sequenceByName(channels, (c) => c.name as string);
    const channelRefs = new Map(
      channels.map((c) => [c.id as number, refOf(c.name as string, channelSeq.get(c)!)]),
    );
    yield* table(
      'channels',
      channels,
      (c): BackupChannel => ({
        name: c.name as string,
        ...(channelSeq.get(c)! > 1 ? { seq: channelSeq.get(c)! } : {}),
        type: c.type as string,
        config: parseOr(c.config as string, {}),
        enabled: c.enabled === 1,
        title_template: c.title_template as string,
        body_template: c.body_template as string,
      }),
      counts,
    );

    // Sensors
    const sensors = db.prepare('SELECT * FROM sensors ORDER BY id').all() as Row[];
    const sensorSeq = sequenceByName(sensors, (s) => s.name as string);
    const sensorRefs = new Map(
      sensors.map((s) => [s.id as number, refOf(s.name as string, sensorSeq.get(s)!)]),
    );
    const links = new Map<number, number[]>();
    for (const link of db
      .prepare('SELECT sensor_id, channel_id FROM sensor_channels ORDER BY sensor_id, channel_id')
      .all() as { sensor_id: number; channel_id: number }[]) {
      const list = links.get(link.sensor_id) ?? [];
      list.push(link.channel_id);
      links.set(link.sensor_id, list);
    }
    const inOrder = [...sensors].sort(
      (a, b) => (a.sort_order as number) - (b.sort_order as number) || (a.id as number) - (b.id as number),
    );
    yield* table(
      'sensors',
      inOrder,
      (s): BackupSensor => ({
        name: s.name as string,
        ...(sensorSeq.get(s)! > 1 ? { seq: sensorSeq.get(s)! } : {}),
        type: s.type as string,
        target: s.target as string,
        interval: s.interval as number,
        retries: s.retries as number,
        reminder_every: s.reminder_every as number,
        group: s.group_name as string,
        tags: parseOr(s.tags as string, []),
        site: s.site_id === null ? '' : (siteNames.get(s.site_id as number) ?? ''),
        parent: s.parent_id === null ? null : (sensorRefs.get(s.parent_id as number) ?? null),
        enabled: s.enabled === 1,
        options: parseOr(s.options as string, {}),
        channels: (links.get(s.id as number) ?? []).map((id) => channelRefs.get(id)!).filter(Boolean),
        sort_order: s.sort_order as number,
        sample: s.sample === 1,
      }),
      counts,
    );

    // Accounts, each with its recovery codes
    const codes = new Map<number, { code_hash: string; used_at: string | null }[]>();
    for (const code of db
      .prepare('SELECT user_id, code_hash, used_at FROM recovery_codes ORDER BY user_id, id')
      .all() as { user_id: number; code_hash: string; used_at: number | null }[]) {
      const list = codes.get(code.user_id) ?? [];
      list.push({ code_hash: code.code_hash, used_at: isoOrNull(code.used_at) });
      codes.set(code.user_id, list);
    }
    const users = db.prepare('SELECT * FROM users ORDER BY id').all() as Row[];
    yield* table(
      'accounts',
      users,
      (u): BackupAccount => ({
        username: u.username as string,
        role: u.role as BackupAccount['role'],
        disabled: u.disabled === 1,
        password_hash: u.password_hash as string,
        token_epoch: u.token_epoch as number,
        totp_secret: u.totp_secret as string | null,
        totp_enabled: u.totp_enabled === 1,
        totp_last_step: u.totp_last_step as number | null,
        ui: parseOr(u.ui as string, {}),
        tour_version: u.tour_version as number,
        last_login_at: isoOrNull(u.last_login_at as number | null),
        created_at: new Date(u.created_at as number).toISOString(),
        recovery_codes: codes.get(u.id as number) ?? [],
      }),
      counts,
    );

    if (scope === 'history') {
      const cutoffs = historyCutoffs(days, now);
      const incidents = db
        .prepare(
          `SELECT * FROM incidents WHERE resolved_at IS NULL OR resolved_at >= ? ORDER BY started_at, id`,
        )
        .iterate(cutoffs ? cutoffs.incidents : Number.MIN_SAFE_INTEGER) as IterableIterator<Row>;
      yield* table(
        'incidents',
        incidents,
        (i): BackupIncident => ({
          sensor: sensorRefs.get(i.sensor_id as number)!,
          started_at: new Date(i.started_at as number).toISOString(),
          resolved_at: isoOrNull(i.resolved_at as number | null),
          cause: i.cause as string,
          acknowledged: i.acknowledged === 1,
          acknowledged_by: i.acknowledged_by as string | null,
          acknowledged_at: isoOrNull(i.acknowledged_at as number | null),
          note: i.note as string,
          reconstructed: i.reconstructed === 1,
        }),
        counts,
      );
      for (const [tier, stepMs, cutoff] of [
        ['rollup_hourly', HOUR_MS, cutoffs?.hourly],
        ['rollup_daily', DAY_MS, cutoffs?.daily],
      ] as const) {
        const read = db
          .prepare(
            `SELECT bucket_start, count, up, latency_sum, latency_min, latency_max FROM ${tier}
             WHERE sensor_id = ? AND bucket_start >= ? ORDER BY bucket_start`,
          )
          .raw();
        let buckets = 0;
        let first = true;
        yield `,\n"${tier}":[`;
        for (const sensor of sensors) {
          // Rows are read one at a time and each block goes out as soon as it is complete, so what
          // is held at once is one block (a month of hours), not a sensor's whole history.
          const ref = sensorRefs.get(sensor.id as number)!;
          const out: string[] = [];
          const encoder = new BlockEncoder(stepMs, (block) => {
            out.push(`${first ? '' : ','}\n${JSON.stringify({ sensor: ref, ...block })}`);
            first = false;
          });
          for (const row of read.iterate(
            sensor.id,
            cutoff ?? Number.MIN_SAFE_INTEGER,
          ) as IterableIterator<BucketRow>) {
            encoder.push(...row);
            buckets++;
            if (out.length > 0) yield out.splice(0).join('');
          }
          encoder.flush();
          if (out.length > 0) yield out.splice(0).join('');
        }
        yield '\n]';
        counts[tier] = buckets;
      }
    }
    yield '}\n';
  }
}

function* table<T>(
  name: BackupTable,
  rows: Iterable<Row>,
  toEntry: (row: Row) => T,
  counts: Partial<Record<BackupTable, number>>,
): Generator<string> {
  let n = 0;
  yield `,\n"${name}":[`;
  for (const row of rows) {
    yield `${n === 0 ? '' : ','}\n${JSON.stringify(toEntry(row))}`;
    n++;
  }
  yield '\n]';
  counts[name] = n;
}

function parseOr<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
