import type { ProbeResult } from '@monitor/contracts';
import { type ProbeCatalogue, type ProbeOutcome, timeoutMs } from '@monitor/probes';
import type { Clock } from '../core/clock/clock';
import type { AppLogger } from '../core/logging/logger';
import type { ProcessMetrics } from '../core/metrics/process-metrics';
import type { StoredResult } from '../history/stored-result';
import type { SensorDefinition } from '../sensors/sensor-definition';
import type { SensorRuntimeService } from './sensor-runtime.service';

/** The abort reason of a loop stopped (paused, changed, deleted, handed over, shut down). */
export const STOPPED = 'stopped';

const iso = (ms: number) => new Date(ms).toISOString();

/** Runs one probe; it never outlives its time-out, whatever the probe does. */
export async function runProbe(
  catalogue: ProbeCatalogue,
  definition: SensorDefinition,
  controller: AbortController,
  /** A draft probe of a caller below administrator: addresses go through the address guard. */
  guarded = false,
): Promise<ProbeOutcome> {
  const probe = catalogue.get(definition.type);
  if (!probe) return { success: false, message: `no probe for type ${definition.type}`, latencyMs: null };
  const limit = timeoutMs(definition.options, definition.interval);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ success: false, message: `timed out after ${limit / 1000} s`, latencyMs: null });
    }, limit + 250);
  });
  try {
    return await Promise.race([
      probe.run({
        target: definition.target,
        options: definition.options,
        timeoutMs: limit,
        signal: controller.signal,
        guarded,
      }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A probe outcome as the history stores it (latency to a tenth of a millisecond). */
export function outcomeColumns(outcome: ProbeOutcome): Omit<StoredResult, 'sensorId' | 'ts'> {
  return {
    success: outcome.success,
    statusCode: outcome.statusCode ?? null,
    latencyMs: outcome.latencyMs === null ? null : Math.round(outcome.latencyMs * 10) / 10,
    message: outcome.message,
  };
}

/** A probe outcome as the API shows a stored result. */
export function resultView(ts: number, outcome: ProbeOutcome): ProbeResult {
  const columns = outcomeColumns(outcome);
  return {
    ts: iso(ts),
    success: columns.success,
    status_code: columns.statusCode,
    message: columns.message,
    latency_ms: columns.latencyMs,
  };
}

/**
 * The scheduled probes running now, one at most per sensor, and what becomes of each outcome:
 * submitted to the runtime (unless its loop stopped meanwhile) and counted once announced.
 */
export class ProbeRuns {
  private readonly running = new Map<number, AbortController>();
  /** When each running probe started: its result will be stamped with that time. */
  private readonly since = new Map<number, number>();

  constructor(
    private readonly catalogue: ProbeCatalogue,
    private readonly runtime: Pick<SensorRuntimeService, 'submit'>,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly metrics: Pick<ProcessMetrics, 'probeFinished'>,
    private readonly logger: AppLogger,
  ) {}

  has(id: number): boolean {
    return this.running.has(id);
  }

  /** The start of the oldest probe still running (Infinity when none runs). */
  oldestStart(): number {
    return Math.min(...this.since.values());
  }

  stop(id: number): void {
    this.running.get(id)?.abort(STOPPED);
  }

  stopAll(): void {
    for (const controller of this.running.values()) controller.abort(STOPPED);
  }

  async run(definition: SensorDefinition): Promise<void> {
    const controller = new AbortController();
    this.running.set(definition.id, controller);
    const at = this.clock.now();
    this.since.set(definition.id, at);
    try {
      const outcome = await runProbe(this.catalogue, definition, controller);
      // A loop stopped meanwhile (paused, changed, deleted) does not record its last run.
      const submitted =
        controller.signal.reason === STOPPED ? null : await this.runtime.submit(definition.id, outcome, at);
      // Counted once stored and announced; the loop is free again as soon as the result is queued.
      void (submitted?.announced ?? Promise.resolve()).then(() =>
        this.metrics.probeFinished(definition.id, outcome.success, outcome.certExpiresAt),
      );
    } catch (error) {
      this.logger.error({ sensor_id: definition.id, error: (error as Error).message }, 'probe run failed');
    } finally {
      if (this.running.get(definition.id) === controller) {
        this.running.delete(definition.id);
        this.since.delete(definition.id);
      }
    }
  }
}
