import { Inject, Injectable } from '@nestjs/common';
import type { MonitorEvents } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SchedulerService } from '../scheduler/scheduler.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { MapSettingsService } from '../sites/map-settings.service';

const REFRESH_BATCH_MS = 50;

/** An event as another instance published it. */
export type RemoteEvent = {
  [K in keyof MonitorEvents]: { kind: K; payload: MonitorEvents[K] };
}[keyof MonitorEvents];

/**
 * What this instance does with an event another instance caused: show other owners' results,
 * statuses and incidents; follow edits of sensors (probe them differently, or stop); re-read a
 * sensor it owns whose incident was changed elsewhere (acknowledged, closed by a pause); reload
 * maintenance windows and map settings.
 */
@Injectable()
export class RemoteChanges {
  private refreshIds = new Set<number>();
  private refreshTimer?: NodeJS.Timeout;
  private resyncing?: Promise<void>;

  constructor(
    private readonly scheduler: SchedulerService,
    private readonly runtime: SensorRuntimeService,
    private readonly maintenance: MaintenanceService,
    private readonly mapSettings: MapSettingsService,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  apply(event: RemoteEvent): void {
    switch (event.kind) {
      case 'result':
        return this.runtime.observeResult(event.payload.sensor_id, event.payload.result);
      case 'status':
        if (!this.scheduler.owns(event.payload.sensor_id))
          this.runtime.observeStatus(event.payload.sensor_id, event.payload.status, Date.now());
        return;
      case 'incident':
        if (this.scheduler.owns(event.payload.sensor_id)) this.refreshSoon(event.payload.sensor_id);
        else this.runtime.observeIncident(event.payload.sensor_id, event.payload.incident);
        return;
      case 'sensor':
        return this.quietly(this.followSensor(event.payload.id, event.payload.action));
      case 'maintenance':
        return this.quietly(this.maintenance.reload());
      case 'push':
        return this.recordPush(event.payload);
      case 'settings':
        return this.quietly(this.resync());
      case 'channel':
      case 'statusPage':
      case 'cluster':
      case 'alert':
        // Channels and status pages are read from storage when used (the public page's cache heard
        // the event on this instance's bus already); the others do not cross instances.
        return;
    }
  }

  /** A push another instance received for a sensor this one probes: recorded here, exactly once. */
  private recordPush(push: MonitorEvents['push']): void {
    if (!this.scheduler.owns(push.sensor_id)) return;
    this.scheduler.pushed(push.sensor_id, push.at);
    const outcome = {
      success: push.success,
      message: push.message,
      latencyMs: push.latency_ms,
      statusCode: null,
    };
    this.quietly(this.runtime.submit(push.sensor_id, outcome, push.at));
  }

  /** Work on behalf of another instance's event: a failure (storage down, shutting down) is logged. */
  quietly(work: Promise<unknown>): void {
    work.catch((error: unknown) =>
      this.logger.warn({ error: (error as Error).message }, 'following another instance failed'),
    );
  }

  private async followSensor(id: number, action: 'created' | 'updated' | 'deleted'): Promise<void> {
    const wasEnabled = this.runtime.get(id)?.definition.enabled;
    await this.scheduler.reconcile(id);
    if (action === 'deleted') return this.maintenance.reload();
    // Paused or resumed elsewhere: the owner takes the state that instance wrote.
    if (wasEnabled !== undefined && wasEnabled !== this.runtime.get(id)?.definition.enabled)
      this.refreshSoon(id);
  }

  private refreshSoon(id: number): void {
    this.refreshIds.add(id);
    this.refreshTimer ??= setTimeout(() => {
      const ids = [...this.refreshIds];
      this.refreshIds = new Set();
      this.refreshTimer = undefined;
      this.quietly(this.runtime.refresh(ids, (sensor) => this.scheduler.owns(sensor)));
    }, REFRESH_BATCH_MS);
  }

  /** Re-reads every sensor definition, the maintenance windows and the map settings. */
  resync(): Promise<void> {
    this.resyncing ??= (async () => {
      await this.scheduler.resync();
      await this.maintenance.reload();
      await this.mapSettings.reload();
    })().finally(() => (this.resyncing = undefined));
    return this.resyncing;
  }
}
