import { Injectable } from '@nestjs/common';
import type { ProbeResult } from '@monitor/contracts';
import { ProbeCatalogue, withoutPeerText } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import type { SensorDefinition } from '../sensors/sensor-definition';
import { type LiveSensor, SensorScheduling } from '../sensors/sensor-scheduling';
import { resultView, runProbe } from './run-probe';
import { SchedulerService } from './scheduler.service';
import { SensorRuntimeService } from './sensor-runtime.service';

/** The sensors feature's view of the scheduler (see SensorScheduling). */
@Injectable()
export class SchedulerSensorScheduling extends SensorScheduling {
  constructor(
    private readonly scheduler: SchedulerService,
    private readonly runtime: SensorRuntimeService,
    private readonly catalogue: ProbeCatalogue,
    private readonly clock: Clock,
  ) {
    super();
  }

  live(id: number): LiveSensor | undefined {
    return this.runtime.get(id);
  }

  reconcile(id: number, known?: SensorDefinition): Promise<void> {
    return this.scheduler.reconcile(id, known);
  }

  command(id: number, command: 'pause' | 'resume'): Promise<void> {
    return this.runtime.command(id, command);
  }

  async probeDraft(definition: SensorDefinition, guarded: boolean): Promise<ProbeResult> {
    const started = this.clock.now();
    const outcome = await runProbe(this.catalogue, definition, new AbortController(), guarded);
    // Below administrator the answer carries no text of the peer's.
    return resultView(started, guarded ? withoutPeerText(outcome) : outcome);
  }

  async probeNow(id: number): Promise<ProbeResult | null> {
    const entry = this.runtime.get(id);
    if (!entry) return null;
    const at = this.clock.now();
    const outcome = await runProbe(this.catalogue, entry.definition, new AbortController());
    return this.runtime.recordManual(id, outcome, at);
  }
}
