import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { renderAlert, type AlertContext } from '@monitor/domain';
import { deliverWithRetries, type DeliveryOutcome, type Notification } from '@monitor/notifiers';
import type { Subscription } from 'rxjs';
import { DataSource } from 'typeorm';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { type AlertEvent, EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { ChannelEntity } from './channel.entity';
import { ChannelsService } from './channels.service';

/**
 * Delivers alert events to their channels, off the scheduler: each channel has its own queue (one
 * delivery at a time per channel), channels run in parallel, and a slow or failing channel delays
 * no other channel and no probe. The last error of each channel is recorded.
 */
@Injectable()
export class DeliveryService implements OnModuleInit, OnApplicationShutdown {
  private readonly queues = new Map<number, Promise<void>>();
  private readonly stop = new AbortController();
  private subscription?: Subscription;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly events: EventBus,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    this.subscription = this.events.on('alert').subscribe((alert) => this.dispatch(alert));
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscription?.unsubscribe();
    this.stop.abort();
    await Promise.allSettled([...this.queues.values()]);
  }

  /** Resolves once every queued delivery has finished (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  dispatch(alert: AlertEvent): void {
    for (const channelId of new Set(alert.channelIds))
      this.enqueue(channelId, () => this.deliver(channelId, alert));
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

  private async deliver(channelId: number, alert: AlertEvent): Promise<void> {
    const channel = await this.dataSource.getRepository(ChannelEntity).findOneBy({ id: channelId });
    if (!channel || !channel.enabled) return;
    const notification = this.notification(alert, channel);
    const outcome = await deliverWithRetries(
      this.channels.notifierOf(channel.type),
      channel.config,
      notification,
      {
        signal: this.stop.signal,
      },
    );
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

  private notification(alert: AlertEvent, channel: ChannelEntity): Notification {
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
    await this.dataSource
      .getRepository(ChannelEntity)
      .update({ id: channelId }, { lastError: error, lastErrorAt: at });
    this.events.emit('channel', { id: channelId, action: 'updated' });
  }
}
