import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { DatabaseProbe } from './database-probe';
import { StorageHealth } from './storage-health';

/** How often a full disk is looked at while writes fail. */
export const STORAGE_WATCH_MS = 1000;

/**
 * SQLite on a full disk: when a write fails for lack of space, the write-ahead log is copied into
 * the database and cut to nothing (TRUNCATE checkpoint), and from then on the disk is looked at
 * every second. Once it has room again the log is cut once more and a test write ends the spell,
 * so the result writer sends its backlog within about a second of space returning, whether or not
 * anyone asks /healthz. Until then a write that still fits does not end the spell (requireRoom).
 */
@Injectable()
export class StorageRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private truncating = false;
  private stopped = false;

  constructor(
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly health: StorageHealth,
    private readonly probe: DatabaseProbe,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.database_url) return;
    this.health.requireRoom(() => this.probe.hasRoom());
    this.health.whenFailing((problem) => {
      if (!problem.full || this.stopped) return;
      this.truncateSoon();
      this.timer ??= setInterval(() => this.look(), STORAGE_WATCH_MS).unref();
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.stop();
  }

  /** After the failed write's transaction has rolled back, never inside it. */
  private truncateSoon(): void {
    if (this.truncating) return;
    this.truncating = true;
    setImmediate(() => {
      this.truncating = false;
      if (!this.stopped) this.probe.truncateLog();
    });
  }

  private look(): void {
    if (this.stopped || !this.health.problem()?.full) return this.stop();
    if (!this.probe.hasRoom()) return;
    this.probe.truncateLog();
    void this.probe.tryWrite().then((ok) => {
      if (ok) this.health.reportSuccess({ noticed_by: 'storage watch' });
    });
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
