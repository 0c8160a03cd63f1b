import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { renderAlert, type AlertContext } from '@monitor/domain';
import { deliverWithRetries, type DeliveryOutcome, type Notification } from '@monitor/notifiers';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { type AlertEvent, EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import { ProcessMetrics } from '../core/metrics/process-metrics';
import type { AppLogger } from '../core/logging/logger';
import { MembershipService } from '../cluster/membership.service';
import { AlertOutboxRepository, type StoredAlert } from './alert-outbox.repository';
import type { ChannelEntity } from './channel.entity';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';

/** The longest wait between two tries to mark a sent alert finished while storage is away. */
const FINISH_RETRY_MAX_MS = 10_000;

/** Finished outbox rows are kept this long (for inspection), then pruned. */
export const OUTBOX_KEEP_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/**
 * Delivers alerts to their channels from the alert outbox, off the scheduler: each channel has its
 * own queue (one delivery at a time per channel), channels run in parallel, and a slow or failing
 * channel delays no other channel and no probe. The last error of each channel is recorded. A row
 * is marked finished after its delivery ends; rows left unfinished by a crash (or a shutdown that
 * stopped a delivery) are claimed and sent by another live instance or the next start. The one
 * window left: a kill after the receiver accepted an alert and before its row is marked sends that
 * alert once more.
 */
@Injectable()
export class DeliveryService implements OnModuleInit, OnApplicationShutdown {
  private readonly queues = new Map<number, Promise<void>>();
  /** Outbox rows queued or being sent in this process: never queued twice. */
  private readonly claimed = new Set<number>();
  private readonly stop = new AbortController();
  private subscription?: Subscription;
  private membershipChanges?: Subscription;
  private pruner?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly channelRows: ChannelsRepository,
    private readonly outbox: AlertOutboxRepository,
    private readonly channels: ChannelsService,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly membership: MembershipService,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: ProcessMetrics,
  ) {}

  /** Runs before any probe can alert, so alerts left over from the last run go out first. */
  async onModuleInit(): Promise<void> {
    this.subscription = this.events.on('alert').subscribe((alert) => this.dispatch(alert));
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
    // Awaited, so the app is up only once last run's unsent alerts are queued again.
    await this.prune();
    await this.sweep();
    if (!this.membership.self.clustered) return;
    // Another instance's alerts become ours to send once it is gone.
    this.membershipChanges = this.membership.changes.subscribe(({ gone }) => {
      if (gone.size > 0) void this.sweep();
    });
    this.sweeper = setInterval(() => void this.sweep(), this.membership.periodMs);
    this.sweeper.unref();
  }

  /**
   * Claims and queues every outbox row whose delivery never finished and whose process is gone
   * (a crash, a stopped delivery, an instance that died): at start, and with several instances
   * every membership period and whenever one dies.
   */
  async resendUnfinished(): Promise<number> {
    let queued = 0;
    const orphaned = this.membership.orphaned(await this.outbox.unfinishedClaimers());
    for (;;) {
      const orphans = await this.outbox.claimOrphans(orphaned);
      for (const { outboxId, channelId, alert } of orphans) {
        if (this.claim(outboxId)) {
          this.enqueue(channelId, () => this.deliver(channelId, outboxId, alert));
          queued++;
        }
      }
      if (orphans.length === 0) break;
    }
    if (queued > 0) this.logger.info({ alerts: queued }, 'sending alerts left unsent by the last run');
    return queued;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.stop.signal.aborted) return;
    this.sweeping = true;
    try {
      await this.resendUnfinished();
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'reading the alert outbox failed');
    } finally {
      this.sweeping = false;
    }
  }

  private async prune(): Promise<void> {
    try {
      const pruned = await this.outbox.pruneFinished(this.clock.now() - OUTBOX_KEEP_MS);
      if (pruned > 0) this.logger.info({ rows: pruned }, 'pruned delivered alerts from the outbox');
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'pruning the alert outbox failed');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.pruner) clearInterval(this.pruner);
    if (this.sweeper) clearInterval(this.sweeper);
    this.membershipChanges?.unsubscribe();
    this.subscription?.unsubscribe();
    this.stop.abort();
    await Promise.allSettled([...this.queues.values()]);
  }

  /** Resolves once every queued delivery has finished (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  dispatch(alert: AlertEvent): void {
    const { deliveries, ...stored } = alert;
    for (const { channelId, outboxId } of deliveries)
      if (this.claim(outboxId)) this.enqueue(channelId, () => this.deliver(channelId, outboxId, stored));
  }

  private claim(outboxId: number): boolean {
    if (this.claimed.has(outboxId)) return false;
    this.claimed.add(outboxId);
    return true;
  }

  /** A test message through a saved or unsaved channel: one attempt, its error named. */
  async test(
    channel: Pick<ChannelEntity, 'type' | 'config' | 'titleTemplate' | 'bodyTemplate'>,
  ): Promise<DeliveryOutcome> {
    const notifier = this.channels.notifierOf(channel.type);
    const at = this.clock.now();
    const context: AlertContext = {
      kind: 'test',
      at,
      sensor: null,
      result: null,
      downSince: null,
      downForMs: 0,
      url: this.config.base_url,
    };
    const { title, message } = renderAlert(context, channel.titleTemplate, channel.bodyTemplate);
    const notification: Notification = {
      kind: 'test',
      title,
      message,
      url: this.config.base_url,
      timestamp: new Date(at).toISOString(),
      sensor: null,
      result: null,
      incident: null,
    };
    return deliverWithRetries(notifier, channel.config, notification, {
      attempts: 1,
      signal: this.stop.signal,
    });
  }

  private enqueue(channelId: number, work: () => Promise<void>): void {
    const previous = this.queues.get(channelId) ?? Promise.resolve();
    const next = previous.then(work).catch((error: unknown) => {
      this.logger.error({ channel_id: channelId, error: (error as Error).message }, 'alert delivery failed');
    });
    this.queues.set(channelId, next);
    void next.then(() => {
      if (this.queues.get(channelId) === next) this.queues.delete(channelId);
    });
  }

  private async deliver(channelId: number, outboxId: number, alert: StoredAlert): Promise<void> {
    try {
      await this.send(channelId, outboxId, alert);
    } finally {
      this.claimed.delete(outboxId);
    }
  }

  private async send(channelId: number, outboxId: number, alert: StoredAlert): Promise<void> {
    const channel = await this.channelRows.byId(channelId);
    if (!channel || !channel.enabled) return this.finish(outboxId, 'channel disabled or deleted');
    const notification = this.notification(alert, channel);
    const outcome = await deliverWithRetries(
      this.channels.notifierOf(channel.type),
      channel.config,
      notification,
      {
        signal: this.stop.signal,
      },
    );
    // Stopped by shutdown: left unfinished, so the next start sends it.
    if (!outcome.ok && this.stop.signal.aborted) return;
    await this.finish(outboxId, outcome.ok ? null : outcome.error.message);
    this.metrics.alertFinished(channel.name, outcome.ok);
    await this.record(channelId, outcome);
    const fields = {
      channel_id: channelId,
      sensor_id: alert.sensor.id,
      alert: alert.kind,
      attempts: outcome.attempts,
    };
    if (outcome.ok) this.logger.info(fields, 'alert delivered');
    else this.logger.warn({ ...fields, error: outcome.error.message }, 'alert not delivered');
  }

  /**
   * Marks the row finished. While the database is away (a restart) it tries again and the row stays
   * claimed here meanwhile, so the alert it sent is not sent a second time from the outbox.
   */
  private async finish(outboxId: number, error: string | null): Promise<void> {
    const at = this.clock.now();
    for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, FINISH_RETRY_MAX_MS)) {
      try {
        return await this.outbox.finish(outboxId, at, error);
      } catch (failure) {
        if (this.stop.signal.aborted) throw failure;
        this.logger.warn(
          { outbox_id: outboxId, error: (failure as Error).message },
          'marking a sent alert failed; trying again',
        );
        await sleep(waitMs, undefined, { signal: this.stop.signal }).catch(() => undefined);
      }
    }
  }

  private notification(alert: StoredAlert, channel: ChannelEntity): Notification {
    const url = this.config.base_url ? `${this.config.base_url}/sensors/${alert.sensor.id}` : '';
    const result = alert.result;
    const context: AlertContext = {
      kind: alert.kind,
      at: alert.at,
      sensor: alert.sensor,
      result,
      downSince: alert.downSince,
      downForMs: alert.downForMs,
      url,
    };
    const { title, message } = renderAlert(context, channel.titleTemplate, channel.bodyTemplate);
    const { id, name, type, target, group, tags } = alert.sensor;
    return {
      kind: alert.kind,
      title,
      message,
      url,
      timestamp: new Date(alert.at).toISOString(),
      sensor: { id, name, type, target, group, tags },
      result,
      incident: alert.incident
        ? {
            id: alert.incident.id,
            started_at: alert.incident.started_at,
            cause: alert.incident.cause,
            ...(alert.incident.resolved_at ? { resolved_at: alert.incident.resolved_at } : {}),
          }
        : null,
    };
  }

  private async record(channelId: number, outcome: DeliveryOutcome): Promise<void> {
    const error = outcome.ok ? '' : outcome.error.message;
    const at = outcome.ok ? null : this.clock.now();
    await this.channelRows.recordOutcome(channelId, error, at);
    this.events.emit('channel', { id: channelId, action: 'updated' });
  }
}
