import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { RestoreResult } from '@monitor/contracts';
import { ConflictError, DomainError, InvalidInputError } from '@monitor/domain';
import { ProbeCatalogue } from '@monitor/probes';
import { ChannelsRepository } from '../channels/channels.repository';
import { ChannelsService } from '../channels/channels.service';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { DATABASE_FILE, databasePath } from '../core/database/database-path';
import { BackupConnections } from '../core/database/backup-connections';
import { DatabaseFile } from '../core/database/database-file';
import { EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { ResultWriter } from '../history/result-writer.service';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SchedulerService } from '../scheduler/scheduler.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { LIFTED_CREDENTIALS_MESSAGE, mergeDraft, withTargetCredentialsLifted } from '../sensors/sensor-input';
import { SensorsRepository } from '../sensors/sensors.repository';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { MapSettingsService } from '../sites/map-settings.service';
import { SitesRepository } from '../sites/sites.repository';
import { apiKeyRows } from './api-key-rows';
import { entryKey, refKey, refLabel, safetyCopyName } from './backup-format';
import { JsonScanError, JsonTableScanner } from './json-table-scanner';
import { LoopTurns } from './loop-turns';
import type { RestoreOutcome } from './restore-apply';
import { planData } from './restore-job';
import { RESTORE_BODY_LIMIT } from './restore-body';
import { RestorePlan } from './restore-plan';
import { SafetyCopyError } from './restore-errors';
import { restoreIntoPostgres } from './restore-postgres';
import { applyInWorker } from './restore-worker-launch';

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
}

export { SafetyCopyError } from './restore-errors';

/** How long the restore's connection waits for the write lock (the server's own writes are short). */
const WRITE_LOCK_WAIT_MS = 30_000;
/** How long the server's connection waits for the write lock while a restore writes. */
const RESTORE_BUSY_TIMEOUT_MS = 10 * 60_000;

/**
 * POST /api/restore. The document streams in once: it is checked row by row as it arrives and
 * spooled to a private file beside the database, so at most one row is held in memory besides
 * the small tables. Only when everything checks out is the safety copy made; then one transaction
 * replaces the named tables, reading the large ones again from the spooled file, while the event
 * loop goes on serving requests and probes: SQLite's in a worker thread on a connection of its
 * own, PostgreSQL's awaited statement by statement on a pool client of its own.
 * Afterwards the sensor runtime is rebuilt, the scheduler reconciled and every change announced.
 */
@Injectable()
export class RestoreService {
  private busy = false;

  constructor(
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly database: DatabaseFile,
    private readonly connections: BackupConnections,
    private readonly siteRows: SitesRepository,
    private readonly channelRows: ChannelsRepository,
    private readonly secrets: InstallationSecretsService,
    private readonly channels: ChannelsService,
    private readonly catalogue: ProbeCatalogue,
    private readonly sensors: SensorsRepository,
    private readonly runtime: SensorRuntimeService,
    private readonly scheduler: SchedulerService,
    private readonly maintenance: MaintenanceService,
    private readonly writer: ResultWriter,
    private readonly events: EventBus,
    private readonly mapSettings: MapSettingsService,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async restore(body: Readable, declaredLength: number | null): Promise<RestoreResult> {
    if (declaredLength !== null && declaredLength > RESTORE_BODY_LIMIT) throw tooLarge();
    // Checked and claimed in one synchronous step: no other request runs in between.
    if (this.busy) throw new ConflictError('another restore is running');
    this.busy = true;
    const started = performance.now();
    const spool = path.join(
      this.config.data_dir,
      `.${DATABASE_FILE}.restore-upload-${randomBytes(6).toString('hex')}`,
    );
    try {
      const liftedSensors: string[] = [];
      const plan = new RestorePlan({
        channel: (row) => void this.channels.checkedDraft(row),
        sensor: (row) => {
          // A backup of an older version may carry credentials in a target: converted, named in the log.
          const lifted = withTargetCredentialsLifted(row);
          if (lifted) {
            row.target = lifted.target;
            row.options = lifted.options;
            liftedSensors.push(row.name);
          }
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
            'given',
          );
        },
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
      await this.checkReferencesToStoredRows(plan);
      const apiKey = plan.apiKey ? apiKeyRows(await this.secrets.sessionKey(), plan.apiKey) : null;
      lap('check_ms');

      const now = this.clock.now();
      const postgres = this.connections.dialect === 'postgres';
      // From here until the restore is written, probe results wait in memory. SQLite: a write on
      // the server's connection would block the event loop behind the worker's write lock.
      // PostgreSQL: a result for a sensor the restore deletes would wait on its row lock and then
      // fail its foreign key; held, it is dropped with the sensor below, the others written after.
      const release = this.writer.hold();
      // Any other write there (an edit through the API, an incident opening) waits for the
      // worker's commit instead of failing with SQLITE_BUSY after the usual 5 s. (PostgreSQL:
      // those writers take the advisory lock the restore holds, and wait for it.)
      if (!postgres) this.database.waitForLocks(RESTORE_BUSY_TIMEOUT_MS);
      let safetyCopy: string;
      let outcome: RestoreOutcome;
      try {
        if (postgres) {
          ({ safetyCopy, outcome } = await restoreIntoPostgres(
            this.connections.client(),
            {
              spool,
              plan: planData(plan),
              now,
              apiKeyRows: apiKey,
            },
            {
              dataDir: this.config.data_dir,
              apiKey: await this.secrets.apiKey(),
              openSnapshot: () => this.connections.openSnapshot(),
              refused: (name, cause) =>
                this.logger.error(
                  { safety_copy: name, error: cause },
                  'restore refused: the safety copy failed',
                ),
            },
          ));
          lap('write_ms');
        } else {
          safetyCopy = await this.safetyCopy(now);
          lap('safety_copy_ms');
          outcome = await applyInWorker({
            databaseFile: databasePath(this.config.data_dir),
            spool,
            plan: planData(plan),
            now,
            apiKeyRows: apiKey,
            busyTimeoutMs: WRITE_LOCK_WAIT_MS,
          });
        }
        lap('write_ms');
        // Deleted sensors stop at once, and their waiting results are dropped, not written.
        for (const id of outcome.sensors.deleted) this.runtime.remove(id);
      } finally {
        if (!postgres) this.database.waitForLocksAsUsual();
        release();
      }
      await this.announce(plan, outcome);
      lap('reconcile_ms');
      const result: RestoreResult = {
        counts: outcome.counts,
        safety_copy: safetyCopy,
        token_epoch_notice: (plan.accounts?.length ?? 0) > 0,
      };
      // Row counts, the copy's name and converted sensors' names only: no value of the document.
      if (liftedSensors.length > 0)
        this.logger.warn({ sensors: liftedSensors }, `restore: ${LIFTED_CREDENTIALS_MESSAGE}`);
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
  private async checkReferencesToStoredRows(plan: RestorePlan): Promise<void> {
    if (!plan.sensors && plan.sensorRefs.size > 0) {
      const stored = keysOf(await this.sensors.namesInIdOrder());
      for (const { ref, where } of plan.sensorRefs.values())
        if (!stored.has(refKey(ref)))
          throw new InvalidInputError(
            `${where}: sensor ${refLabel(ref)} is neither in the document nor stored`,
          );
    }
    if (plan.sensors && !plan.sites) {
      const sites = new Set((await this.siteRows.names()).values());
      plan.sensors.forEach((s, i) => {
        if (s.site && !sites.has(s.site))
          throw new InvalidInputError(`sensors row ${i} ("${s.name}"): site "${s.site}" does not exist`);
      });
    }
    if (plan.sensors && !plan.channels) {
      const channels = keysOf(await this.channelRows.namesInIdOrder());
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
    try {
      await this.database.copyTo(target);
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

  /** Brings the running parts in line with the restored tables and tells every client. */
  private async announce(plan: RestorePlan, outcome: RestoreOutcome): Promise<void> {
    // Thousands of sensors: every loop here gives requests and probes a turn now and then.
    const turns = new LoopTurns();
    for (const [action, ids] of Object.entries(outcome.channels) as [
      keyof RestoreOutcome['channels'],
      number[],
    ][])
      for (const id of ids) {
        this.events.emit('channel', { id, action });
        await turns.maybe();
      }
    for (const [action, ids] of Object.entries(outcome.sensors) as [
      keyof RestoreOutcome['sensors'],
      number[],
    ][])
      for (const id of ids) {
        this.events.emit('sensor', { id, action });
        await turns.maybe();
      }
    if (plan.sensors || plan.channels || plan.ranges.incidents) {
      // The `sensor`/`channel` events above dropped the cached sensor list: this reads the new one.
      const definitions = await this.sensors.definitions();
      await turns.maybe();
      // Status, failure streak and open incident come from the restored rows, as at start-up.
      await this.runtime.rebuild(definitions);
      await turns.maybe();
      for (const id of outcome.sensors.deleted) {
        await this.scheduler.reconcile(id);
        await turns.maybe();
      }
      for (const definition of definitions) {
        await this.scheduler.reconcile(definition.id, definition);
        await turns.maybe();
      }
      await this.maintenance.reload();
    }
    for (const change of outcome.statusPages) this.events.emit('statusPage', change);
    if (plan.settings) {
      await this.mapSettings.reload();
      this.events.emit('settings', {});
    }
  }
}

const tooLarge = () =>
  new PayloadTooLargeError(
    `the backup document is larger than the restore limit of ${RESTORE_BODY_LIMIT / 1048576} MiB`,
  );

/** Entry keys (seq, name) of stored sensors or channels, named in id order as a backup numbers them. */
function keysOf(namesInIdOrder: string[]): Set<string> {
  const seen = new Map<string, number>();
  const keys = new Set<string>();
  for (const name of namesInIdOrder) {
    const seq = (seen.get(name) ?? 0) + 1;
    seen.set(name, seq);
    keys.add(entryKey(name, seq));
  }
  return keys;
}
