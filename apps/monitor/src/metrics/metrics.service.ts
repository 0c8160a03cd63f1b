import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../core/clock/clock';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { ProcessMetrics } from '../core/metrics/process-metrics';
import { HistoryService, type UptimeRatios } from '../history/history.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { SitesRepository } from '../sites/sites.repository';
import { renderSensorFamilies, type SensorLabels, type SensorSample } from './sensor-families';

/** How long uptime ratios are served before a scrape starts recomputing them in the background. */
export const UPTIME_REFRESH_MS = 5 * 60_000;
/** Sensors per rollup read while recomputing: each read stays far below a millisecond or two. */
const UPTIME_SENSORS_PER_TURN = 100;

/**
 * GET /metrics: every sensor's state from memory (the same on every instance of a cluster), the
 * counters this process keeps, and uptime ratios computed from the rollups in the background and
 * served from a cache, so a scrape asks the database one small question (the site names).
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private uptime = new Map<number, UptimeRatios>();
  private uptimeAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly runtime: SensorRuntimeService,
    private readonly history: HistoryService,
    private readonly sites: SitesRepository,
    private readonly counters: ProcessMetrics,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.refreshUptime();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.refreshing;
  }

  /**
   * The exposition text in pieces, each ending in a newline: sensor families first, then this
   * process's own metrics. Rendered in full before the answer starts, so a failure is still a 500.
   */
  async scrape(): Promise<string[]> {
    await this.uptimeOfEverySensor();
    const siteNames = await this.sites.names();
    const now = this.clock.now();
    const samples: SensorSample[] = [];
    const seen = new Set<string>();
    const ids = new Set<number>();
    for (const entry of this.runtime.all()) {
      const { definition } = entry;
      ids.add(definition.id);
      const labels: SensorLabels = {
        sensor: definition.name,
        type: definition.type,
        group: definition.group,
        site: definition.siteId == null ? '' : (siteNames.get(definition.siteId) ?? ''),
      };
      // Names need not be unique; equal label sets would be duplicate series, which Prometheus refuses.
      const key = `${labels.sensor}\u0000${labels.type}\u0000${labels.group}\u0000${labels.site}`;
      if (seen.has(key)) labels.sensor = `${labels.sensor} #${definition.id}`;
      else seen.add(key);
      samples.push({
        labels,
        status: entry.state.status,
        latencyMs: entry.latencyMs,
        openIncident: entry.state.incident !== null,
        probes: this.counters.probeCounts(definition.id),
        certExpiresAt: this.counters.certificateExpiry(definition.id),
        uptime: this.uptime.get(definition.id),
      });
    }
    this.counters.forgetAllBut((id) => ids.has(id));
    if (now - this.uptimeAt >= UPTIME_REFRESH_MS || now < this.uptimeAt) this.refreshUptime();
    const pieces = (await renderSensorFamilies(samples)).map((piece) => `${piece}\n`);
    await nextTurn();
    pieces.push(await this.counters.registry.metrics());
    return pieces;
  }

  /**
   * Waits until every sensor has its ratios (null ones when it has no results): a scrape without a
   * series makes it vanish from Prometheus for a scrape interval, as after every start. Only the
   * first scrape (or one after a sensor was created) waits; later ones are served from the cache.
   * At most two rounds: the computation under way, then one for sensors it did not cover.
   */
  private async uptimeOfEverySensor(): Promise<void> {
    for (let round = 0; round < 2 && !this.stopped; round++) {
      if (!this.refreshing) {
        const missing = [...this.runtime.all()]
          .map((entry) => entry.definition.id)
          .filter((id) => !this.uptime.has(id));
        if (missing.length === 0) return;
        // The first computation (at bootstrap) may have found no sensors yet: compute them all.
        this.refreshUptime(this.uptimeAt === Number.NEGATIVE_INFINITY ? undefined : missing);
      }
      await this.refreshing;
    }
  }

  /** Resolves once the uptime ratios being computed (if any) are in place. */
  async uptimeSettled(): Promise<void> {
    await this.refreshing;
  }

  /**
   * Starts recomputing the uptime ratios unless that is under way; the old ones serve meanwhile.
   * With `only`, just those sensors' (new ones), added to the others'.
   */
  private refreshUptime(only?: number[]): void {
    if (this.refreshing || this.stopped) return;
    this.refreshing = this.computeUptime(only)
      .catch((error: unknown) =>
        this.logger.warn({ error: (error as Error).message }, 'computing uptime ratios for metrics failed'),
      )
      .finally(() => (this.refreshing = null));
  }

  private async computeUptime(only?: number[]): Promise<void> {
    const now = this.clock.now();
    const ids = only ?? [...this.runtime.all()].map((e) => e.definition.id);
    const next = only ? new Map(this.uptime) : new Map<number, UptimeRatios>();
    for (let at = 0; at < ids.length && !this.stopped; at += UPTIME_SENSORS_PER_TURN) {
      if (at > 0) await nextTurn();
      for (const [id, ratios] of await this.history.uptimeRatios(
        ids.slice(at, at + UPTIME_SENSORS_PER_TURN),
        now,
      ))
        next.set(id, ratios);
    }
    if (this.stopped) return;
    this.uptime = next;
    if (!only) this.uptimeAt = now;
  }
}
