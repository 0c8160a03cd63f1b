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
import { exportChannels } from '../channels/channel-rows.repository';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { databasePath } from '../core/database/database-path';
import { BUSY_TIMEOUT_MS } from '../core/database/open-database';
import { openReadSnapshot } from '../core/database/own-connection';
import type { SyncTx } from '../core/database/tx';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { rollupReader } from '../history/history-rows.repository';
import { exportIncidents } from '../incidents/incident-rows.repository';
import { exportSensorChannels, exportSensors } from '../sensors/sensor-rows.repository';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { exportSettings } from '../settings/settings-rows.repository';
import { exportSites } from '../sites/site-rows.repository';
import { exportAccounts } from '../users/user-rows.repository';
import {
  backupFileName,
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
    const snapshot = openReadSnapshot(databasePath(this.config.data_dir), BUSY_TIMEOUT_MS);
    const counts: Partial<Record<BackupTable, number>> = {};
    const pieces = this.document(snapshot.tx, { scope, days, now, apiKey, counts });
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
        snapshot.close();
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
    tx: SyncTx,
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
    for (const { key, value } of exportSettings(tx)) {
      if (!isBookkeepingSetting(key)) settings[key] = parseOr(value, value);
    }
    counts.settings = Object.keys(settings).length;
    yield `,\n"settings":${JSON.stringify(settings)}`;
    counts.api_key = options.apiKey === null ? 0 : 1;
    yield `,\n"api_key":${JSON.stringify(options.apiKey)}`;

    // Sites
    const sites = exportSites(tx);
    const siteNames = new Map(sites.map((s) => [s.id, s.name]));
    yield* table(
      'sites',
      sites,
      (s): BackupSite => ({ name: s.name, kind: s.kind, lat: s.lat, lon: s.lon, sample: s.sample }),
      counts,
    );

    // Channels
    const channels = exportChannels(tx);
    const channelSeq = sequenceByName(channels, (c) => c.name);
    const channelRefs = new Map(channels.map((c) => [c.id, refOf(c.name, channelSeq.get(c)!)]));
    yield* table(
      'channels',
      channels,
      (c): BackupChannel => ({
        name: c.name,
        ...(channelSeq.get(c)! > 1 ? { seq: channelSeq.get(c)! } : {}),
        type: c.type,
        config: c.config,
        enabled: c.enabled,
        title_template: c.title_template,
        body_template: c.body_template,
      }),
      counts,
    );

    // Sensors
    const sensors = exportSensors(tx);
    const sensorSeq = sequenceByName(sensors, (s) => s.name);
    const sensorRefs = new Map(sensors.map((s) => [s.id, refOf(s.name, sensorSeq.get(s)!)]));
    const links = exportSensorChannels(tx);
    const inOrder = [...sensors].sort((a, b) => a.sort_order - b.sort_order || a.id - b.id);
    yield* table(
      'sensors',
      inOrder,
      (s): BackupSensor => ({
        name: s.name,
        ...(sensorSeq.get(s)! > 1 ? { seq: sensorSeq.get(s)! } : {}),
        type: s.type,
        target: s.target,
        interval: s.interval,
        retries: s.retries,
        reminder_every: s.reminder_every,
        group: s.group,
        tags: s.tags,
        site: s.siteId === null ? '' : (siteNames.get(s.siteId) ?? ''),
        parent: s.parentId === null ? null : (sensorRefs.get(s.parentId) ?? null),
        enabled: s.enabled,
        options: s.options,
        channels: (links.get(s.id) ?? []).map((id) => channelRefs.get(id)!).filter(Boolean),
        sort_order: s.sort_order,
        sample: s.sample,
      }),
      counts,
    );

    // Accounts, each with its recovery codes
    yield* table(
      'accounts',
      exportAccounts(tx),
      (u): BackupAccount => ({
        ...u,
        last_login_at: isoOrNull(u.last_login_at),
        created_at: new Date(u.created_at).toISOString(),
        recovery_codes: u.recovery_codes.map((c) => ({
          code_hash: c.code_hash,
          used_at: isoOrNull(c.used_at),
        })),
      }),
      counts,
    );

    if (scope === 'history') {
      const cutoffs = historyCutoffs(days, now);
      yield* table(
        'incidents',
        exportIncidents(tx, cutoffs ? cutoffs.incidents : Number.MIN_SAFE_INTEGER),
        (i): BackupIncident => ({
          sensor: sensorRefs.get(i.sensorId)!,
          started_at: new Date(i.started_at).toISOString(),
          resolved_at: isoOrNull(i.resolved_at),
          cause: i.cause,
          acknowledged: i.acknowledged,
          acknowledged_by: i.acknowledged_by,
          acknowledged_at: isoOrNull(i.acknowledged_at),
          note: i.note,
          reconstructed: i.reconstructed,
        }),
        counts,
      );
      for (const [tier, stepMs, cutoff] of [
        ['rollup_hourly', HOUR_MS, cutoffs?.hourly],
        ['rollup_daily', DAY_MS, cutoffs?.daily],
      ] as const) {
        const read = rollupReader(tx, tier);
        let buckets = 0;
        let first = true;
        yield `,\n"${tier}":[`;
        for (const sensor of sensors) {
          // Rows are read one at a time and each block goes out as soon as it is complete, so what
          // is held at once is one block (a month of hours), not a sensor's whole history.
          const ref = sensorRefs.get(sensor.id)!;
          const out: string[] = [];
          const encoder = new BlockEncoder(stepMs, (block) => {
            out.push(`${first ? '' : ','}\n${JSON.stringify({ sensor: ref, ...block })}`);
            first = false;
          });
          for (const row of read(sensor.id, cutoff ?? Number.MIN_SAFE_INTEGER)) {
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

function* table<R, T>(
  name: BackupTable,
  rows: Iterable<R>,
  toEntry: (row: R) => T,
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
