import type { ProbeResult, SensorStatus, SparkPoint } from '@monitor/contracts';
import type { SensorDefinition } from './sensor-definition';

/** What the sensors' API shows of a sensor's live state (the scheduler's runtime entry has more). */
export interface LiveSensor {
  definition: SensorDefinition;
  state: { status: SensorStatus; streak: number; incident: { id: number | null } | null };
  message: string;
  lastCheckedAt: number | null;
  latencyMs: number | null;
  sparkline: SparkPoint[];
  recent: string;
}

/**
 * The scheduler as the sensors feature drives it: bound by the scheduler module (the sensors'
 * files import no scheduler file, so the scheduler's side can change without touching them).
 */
export abstract class SensorScheduling {
  /** The sensor's live state, if the runtime holds it. */
  abstract live(id: number): LiveSensor | undefined;
  /** Brings the sensor's loop in line with its stored definition (created, changed or deleted). */
  abstract reconcile(id: number, known?: SensorDefinition): Promise<void>;
  /** Pause and resume go through the state machine, as results do. */
  abstract command(id: number, command: 'pause' | 'resume'): Promise<void>;
  /** Runs a draft once and stores nothing; `guarded`: a caller below administrator (see runProbe). */
  abstract probeDraft(definition: SensorDefinition, guarded: boolean): Promise<ProbeResult>;
  /** Run now: probes once and stores the result outside the state machine; null for an unknown id. */
  abstract probeNow(id: number): Promise<ProbeResult | null>;
}
