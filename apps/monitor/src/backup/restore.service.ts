import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { RestoreResult } from '@monitor/contracts';
import { ConflictError, DomainError, InvalidInputError } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import type Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { DATABASE_FILE, databasePath } from '../core/database/database-path';
import { sqliteHandle } from '../core/database/sqlite-handle';
import { EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { ResultWriter } from '../history/result-writer.service';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SchedulerService } from '../scheduler/scheduler.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { mergeDraft } from '../sensors/sensor-input';
import { SensorsRepository } from '../sensors/sensors.repository';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { MapSettingsService } from '../sites/map-settings.service';
import { apiKeyRows } from './api-key-rows';
import { entryKey, refKey, refLabel, safetyCopyName } from './backup-format';
import { JsonScanError, JsonTableScanner } from './json-table-scanner';
import { applyRestore, type RestoreOutcome } from './restore-apply';
import { RESTORE_BODY_LIMIT } from './restore-body';
import { RestorePlan, type TableRange } from './restore-plan';

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
}

/** The safety copy could not be made, so nothing was restored. The message names the file and the cause. */
export class SafetyCopyError extends DomainError {
  readonly status = 500;
}

/** How long a restore waits for a transaction someone else has open on the connection. */
const TRANSACTION_WAIT_MS = 30_000;
const READ_CHUNK = 1024 * 1024;

/**
 * POST /api/restore. The document streams in once: it is checked row by row as it arrives and
 * spooled to a private file beside the database, so at most one row is held in memory besides
 * the small tables. Only when everything checks out is the safety copy made; then one synchronous
 * transaction replaces the named tables, reading the large ones again from the spooled file.
 * Afterwards the sensor runtime is rebuilt, the scheduler reconciled and every change announced.
 */
@Injectable()
export class RestoreService {
  private busy = false;

  constructor(
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly dataSource: DataSource,
    private readonly secrets: InstallationSecretsService,
    private readonly channels: ChannelsService,
    private readonly catalogue: ProbeCatalogue,
    private readonly sensors: SensorsRepository,
    private readonly runtime: SensorRuntimeService,
    private readonly scheduler: SchedulerService,
    private readonly maintenance: MaintenanceService,
    private readonly writer: ResultWriter,
    private readonly events: EventBus,
    private readonly moduleRef: ModuleRef,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async restore(body: Readable, declaredLength: number | null): Promise<RestoreResult> {
    if (declaredLength !== null && declaredLength > RESTORE_BODY_LIMIT) throw tooLarge();
    if (this.busy) throw new ConflictError('another restore is running');
    this.busy = true;
    const started = performance.now();
    const spool = path.join(
      this.config.data_dir,
      `.${DATABASE_FILE}.restore-upload-${randomBytes(6).toString('hex')}`,
    );
    try {
      const plan = new RestorePlan({
        channel: (row) => void this.channels.checkedDraft(row),
        sensor: (row) =>
          void mergeDraft(
            null,
            {
              name: row.name,
              type: row.type as never,
              target: row.target,
              interval: row.interval,
              retries: row.retries,
              reminder_every: row.reminder_every,
              group: row.group,
              tags: row.tags,
              enabled: row.enabled,
              options: row.options,
            },
            this.catalogue,
          ),
      });
      const ms: Record<string, number> = {};
      let mark = started;
      const lap = (name: string) => {
        const at = performance.now();
        ms[name] = Math.round(at - mark);
        mark = at;
      };
      await this.receive(body, spool, plan);
      plan.finish();
      this.checkReferencesToStoredRows(plan);
      const apiKey = plan.apiKey ? apiKeyRows(await this.secrets.sessionKey(), plan.apiKey) : null;
      lap('check_ms');

      const now = this.clock.now();
      const safetyCopy = await this.safetyCopy(now);
      lap('safety_copy_ms');
      const outcome = await this.write(plan, spool, now, apiKey);
      lap('write_ms');
      await this.announce(plan, outcome);
      lap('reconcile_ms');
      const result: RestoreResult = {
        counts: outcome.counts,
        safety_copy: safetyCopy,
        token_epoch_notice: (plan.accounts?.length ?? 0) > 0,
      };
      // Row counts and the copy's name only: nothing of the document reaches the log.
      this.logger.info(
        {
          counts: outcome.counts,
          safety_copy: safetyCopy,
          duration_ms: Math.round(performance.now() - started),
          ...ms,
        },
        'restore',
      );
      return result;
    } finally {
      this.busy = false;
      fs.rmSync(spool, { force: true });
    }
  }

  /** Streams the body through the checks into the spool file, refusing it past the size limit. */
  private async receive(body: Readable, spool: string, plan: RestorePlan): Promise<void> {
    const scanner = new JsonTableScanner(plan);
    const file = await fs.promises.open(spool, 'wx', 0o600);
    try {
      await new Promise<void>((resolve, reject) => {
        let received = 0;
        let settled = false;
        const stop = (error?: unknown) => {
          if (settled) return;
          settled = true;
          body.off('data', onData);
          body.off('end', onEnd);
          body.off('error', stop);
          body.off('close', onClose);
          if (error === undefined) return resolve();
          // Leave the rest unread; the answer closes the connection.
          body.pause();
          reject(error instanceof JsonScanError ? new InvalidInputError(error.message) : error);
        };
        const onData = (chunk: Buffer) => {
          received += chunk.length;
          if (received > RESTORE_BODY_LIMIT) return stop(tooLarge());
          try {
            scanner.feed(chunk);
          } catch (error) {
            return stop(error);
          }
          body.pause();
          file.write(chunk).then(
            () => body.resume(),
            (error: unknown) => stop(error),
          );
        };
        const onEnd = () => {
          try {
            scanner.end();
            stop();
          } catch (error) {
            stop(error);
          }
        };
        const onClose = () => stop(new InvalidInputError('the upload ended before the document did'));
        body.on('data', onData);
        body.on('end', onEnd);
        body.on('error', stop);
        body.on('close', onClose);
        body.resume();
      });
    } finally {
      await file.close();
    }
  }

  /** References the document makes to rows it does not carry (its sensors table, its sites…). */
  private checkReferencesToStoredRows(plan: RestorePlan): void {
    const db = sqliteHandle(this.dataSource);
    if (!plan.sensors && plan.sensorRefs.size > 0) {
      const stored = storedKeys(db, 'sensors');
      for (const { ref, where } of plan.sensorRefs.values())
        if (!stored.has(refKey(ref)))
          throw new InvalidInputError(
            `${where}: sensor ${refLabel(ref)} is neither in the document nor stored`,
          );
    }
    if (plan.sensors && !plan.sites) {
      const sites = new Set(
        (db.prepare('SELECT name FROM sites').all() as { name: string }[]).map((s) => s.name),
      );
      plan.sensors.forEach((s, i) => {
        if (s.site && !sites.has(s.site))
          throw new InvalidInputError(`sensors row ${i} ("${s.name}"): site "${s.site}" does not exist`);
      });
    }
    if (plan.sensors && !plan.channels) {
      const channels = storedKeys(db, 'channels');
      plan.sensors.forEach((s, i) => {
        for (const ref of s.channels)
          if (!channels.has(refKey(ref)))
            throw new InvalidInputError(
              `sensors row ${i} ("${s.name}"): channel ${refLabel(ref)} does not exist`,
            );
      });
    }
  }

  /** A copy of the database beside it, through SQLite's online backup; no copy, no restore. */
  private async safetyCopy(now: number): Promise<string> {
    const dir = this.config.data_dir;
    const base = safetyCopyName(DATABASE_FILE, now);
    let name = base;
    for (let n = 2; fs.existsSync(path.join(dir, name)); n++) name = `${base}-${n}`;
    const target = path.join(dir, name);
    // Results still waiting in the write batch belong in the copy.
    this.writer.flush();
    try {
      await sqliteHandle(this.dataSource).backup(target);
      fs.chmodSync(target, fs.statSync(databasePath(dir)).mode & 0o777);
    } catch (error) {
      fs.rmSync(target, { force: true });
      const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.logger.error({ safety_copy: name, error: cause }, 'restore refused: the safety copy failed');
      throw new SafetyCopyError(
        `restore refused: the safety copy ${name} could not be written beside the database (${cause}); nothing was changed`,
      );
    }
    return name;
  }

  /** One synchronous transaction: nothing else can run on the connection until it ends. */
  private async write(
    plan: RestorePlan,
    spool: string,
    now: number,
    apiKey: { hash: string; sealed: string } | null,
  ): Promise<RestoreOutcome> {
    const db = sqliteHandle(this.dataSource);
    // Joining a transaction someone else holds open across an await would tie the restore to it.
    for (const until = Date.now() + TRANSACTION_WAIT_MS; db.inTransaction;) {
      if (Date.now() > until) throw new ConflictError('the database stayed busy; nothing was restored');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.writer.flush();
    const fd = fs.openSync(spool, 'r');
    try {
      return db.transaction(() =>
        applyRestore(db, plan, {
          now,
          apiKeyRows: apiKey,
          scan: (table, onRow) => scanRange(fd, table, plan.ranges[table]!, onRow),
        }),
      )();
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Brings the running parts in line with the restored tables and tells every client. */
  private async announce(plan: RestorePlan, outcome: RestoreOutcome): Promise<void> {
    // Deleted sensors stop at once, and their waiting results are dropped.
    for (const id of outcome.sensors.deleted) this.runtime.remove(id);
    for (const [action, ids] of Object.entries(outcome.channels) as [
      keyof RestoreOutcome['channels'],
      number[],
    ][])
      for (const id of ids) this.events.emit('channel', { id, action });
    for (const [action, ids] of Object.entries(outcome.sensors) as [
      keyof RestoreOutcome['sensors'],
      number[],
    ][])
      for (const id of ids) this.events.emit('sensor', { id, action });
    if (plan.sensors || plan.channels || plan.ranges.incidents) {
      // The `sensor`/`channel` events above dropped the cached sensor list: this reads the new one.
      const definitions = await this.sensors.definitions();
      // Status, failure streak and open incident come from the restored rows, as at start-up.
      await this.runtime.rebuild(definitions);
      for (const id of outcome.sensors.deleted) await this.scheduler.reconcile(id);
      for (const definition of definitions) await this.scheduler.reconcile(definition.id, definition);
      await this.maintenance.reload();
    }
    if (plan.settings) {
      await this.mapSettings()?.reload();
      this.events.emit('settings', {});
    }
  }

  private mapSettings(): MapSettingsService | null {
    try {
      return this.moduleRef.get(MapSettingsService, { strict: false });
    } catch {
      return null;
    }
  }
}

const tooLarge = () =>
  new PayloadTooLargeError(
    `the backup document is larger than the restore limit of ${RESTORE_BODY_LIMIT / 1048576} MiB`,
  );

/** Entry keys (seq, name) of stored sensors or channels, numbered by id as a backup numbers them. */
function storedKeys(db: Database.Database, table: 'sensors' | 'channels'): Set<string> {
  const seen = new Map<string, number>();
  const keys = new Set<string>();
  for (const { name } of db.prepare(`SELECT name FROM ${table} ORDER BY id`).all() as { name: string }[]) {
    const seq = (seen.get(name) ?? 0) + 1;
    seen.set(name, seq);
    keys.add(entryKey(name, seq));
  }
  return keys;
}

/** Reads one large table of the spooled document again, synchronously, row by row. */
function scanRange(
  fd: number,
  table: string,
  range: TableRange,
  onRow: (index: number, row: unknown) => void,
): void {
  const scanner = new JsonTableScanner({
    value: () => undefined,
    tableStart: () => undefined,
    row: (_key, index, row) => onRow(index, row),
    tableEnd: () => undefined,
  });
  scanner.feed(Buffer.from(`{${JSON.stringify(table)}:`));
  const buffer = Buffer.allocUnsafe(READ_CHUNK);
  for (let position = range.start; position < range.end;) {
    const read = fs.readSync(fd, buffer, 0, Math.min(READ_CHUNK, range.end - position), position);
    if (read === 0) throw new Error('the spooled document is shorter than when it was checked');
    scanner.feed(buffer.subarray(0, read));
    position += read;
  }
  scanner.feed(Buffer.from('}'));
  scanner.end();
}
