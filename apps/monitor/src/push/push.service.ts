import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { NotFoundError, PushRateLimit, readPush } from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import { SchedulerService } from '../scheduler/scheduler.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { PushTokenIndex } from './push-tokens';

/** Too many pushes to one token; carries the seconds to wait. */
export class PushRateError extends HttpException {
  constructor(readonly retryAfter: number) {
    super(`too many pushes to this token: try again in ${retryAfter} s`, HttpStatus.TOO_MANY_REQUESTS);
  }
}

/** Longest a push's answer waits for its result to be stored. */
const PUSH_STORE_WAIT_MS = 5000;

/**
 * Pushes: a job reports that it ran (or failed) by calling its sensor's URL. The report goes
 * through the same path as a probe result (state machine, incident, alert, events, history), and
 * the sensor's deadline starts over.
 */
@Injectable()
export class PushService {
  private readonly tokens: PushTokenIndex;
  private readonly rate = new PushRateLimit();

  constructor(
    private readonly runtime: SensorRuntimeService,
    private readonly scheduler: SchedulerService,
    private readonly clock: Clock,
    private readonly events: EventBus,
  ) {
    this.tokens = new PushTokenIndex(
      () => this.runtime.all(),
      (id) => this.runtime.get(id),
      () => this.runtime.definitionsVersion,
    );
  }

  async accept(token: string, query: unknown, body?: unknown): Promise<void> {
    const entry = this.tokens.find(token);
    // Unknown, rotated away, deleted or paused: one answer, no hint which.
    if (!entry || !entry.definition.enabled) throw new NotFoundError('unknown push token');
    const now = this.clock.now();
    const wait = this.rate.take(token, now);
    if (wait !== null) throw new PushRateError(wait);
    const report = readPush(query, body);
    const id = entry.definition.id;
    if (!this.scheduler.owns(id)) {
      // Another instance probes this sensor: it records the push (the cluster bridge carries it).
      const { success, message, latencyMs } = report;
      this.events.emit('push', { sensor_id: id, at: now, success, message, latency_ms: latencyMs });
      return;
    }
    this.scheduler.pushed(id, now);
    const { announced } = await this.runtime.submit(id, { ...report, statusCode: null }, now);
    // Answered once stored and shown; while storage fails, once queued and a few seconds on.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      announced,
      new Promise((resolve) => (timer = setTimeout(resolve, PUSH_STORE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}
