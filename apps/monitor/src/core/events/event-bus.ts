import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type {
  Incident,
  LiveChangeAction,
  LiveEventPayloads,
  ProbeResult,
  SensorStatus,
} from '@monitor/contracts';
import { Observable, Subject } from 'rxjs';

/** What an alert channel needs to tell people about a sensor. */
export interface AlertEvent {
  kind: 'down' | 'up' | 'reminder';
  at: number;
  sensor: {
    id: number;
    name: string;
    type: string;
    target: string;
    group: string;
    tags: string[];
    status: SensorStatus;
  };
  /** One stored outbox row per channel of the sensor: the delivery marks it finished. */
  deliveries: { channelId: number; outboxId: number }[];
  result: ProbeResult | null;
  incident: Incident | null;
  downSince: number;
  downForMs: number;
}

/** Every event kind and its payload: the live stream's kinds plus the internal alert stream. */
export interface MonitorEvents extends LiveEventPayloads {
  /** A status page, its sections or its announcements changed. */
  statusPage: { id: number; slug: string; action: LiveChangeAction };
  /** Maintenance windows changed (internal: lets other instances reload theirs). */
  maintenance: Record<string, never>;
  /** A push that reached an instance not probing its sensor (internal: the sensor's owner records it). */
  push: { sensor_id: number; at: number; success: boolean; message: string; latency_ms: number | null };
  alert: AlertEvent;
}

/**
 * One typed publish/subscribe hub over rxjs subjects. Publishing is synchronous and never waits
 * for a subscriber; subscribers that do slow work must buffer or drop on their side.
 */
@Injectable()
export class EventBus implements OnApplicationShutdown {
  private readonly subjects = new Map<keyof MonitorEvents, Subject<unknown>>();
  private remoteDepth = 0;

  emit<K extends keyof MonitorEvents>(kind: K, payload: MonitorEvents[K]): void {
    this.subjects.get(kind)?.next(payload);
  }

  /**
   * Publishes an event another instance caused (it arrived over the database). Subscribers run
   * synchronously, so `isRemote` tells them, while they run, not to send it on again.
   */
  emitRemote<K extends keyof MonitorEvents>(kind: K, payload: MonitorEvents[K]): void {
    this.remoteDepth++;
    try {
      this.emit(kind, payload);
    } finally {
      this.remoteDepth--;
    }
  }

  /** True while an event from another instance is being delivered to the subscribers. */
  get isRemote(): boolean {
    return this.remoteDepth > 0;
  }

  on<K extends keyof MonitorEvents>(kind: K): Observable<MonitorEvents[K]> {
    let subject = this.subjects.get(kind);
    if (!subject) {
      subject = new Subject<unknown>();
      this.subjects.set(kind, subject);
    }
    return subject.asObservable() as Observable<MonitorEvents[K]>;
  }

  onApplicationShutdown(): void {
    for (const subject of this.subjects.values()) subject.complete();
  }
}
