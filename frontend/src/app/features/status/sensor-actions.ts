import { inject, signal } from '@angular/core';
import type { Sensor } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { formatLatency } from '../../shared/format/latency';
import { StatusSensorsStore } from './status-sensors.store';
import { StatusApi } from './status.api';

export type Feedback = { kind: 'ok' | 'bad'; text: string } | undefined;

/**
 * What a person can do with one sensor from the status page (Run now, Pause/Resume, Acknowledge),
 * with its busy state, error and outcome in words; the card and the list row both draw it. Create it
 * in an injection context (a component's field).
 */
export class SensorActions {
  private readonly api = inject(StatusApi);
  private readonly store = inject(StatusSensorsStore);

  readonly busy = signal(false);
  readonly error = signal<string | undefined>(undefined);
  readonly feedback = signal<Feedback>(undefined);

  constructor(private readonly sensor: () => Sensor) {}

  async runNow(): Promise<void> {
    const result = await this.call(() => this.api.runNow(this.sensor().id));
    if (!result) return;
    const outcome = result.success ? 'ok' : 'failed';
    this.feedback.set({
      kind: result.success ? 'ok' : 'bad',
      text:
        result.latency_ms === null
          ? t('status.card.runResult', { outcome, message: result.message })
          : t('status.card.runResultLatency', {
              outcome,
              message: result.message,
              latency: formatLatency(result.latency_ms),
            }),
    });
  }

  async toggle(): Promise<void> {
    const enabled = !this.sensor().enabled;
    const sensor = await this.call(() => this.api.setEnabled(this.sensor().id, enabled));
    if (!sensor) return;
    this.store.applySensor(sensor);
    this.feedback.set({ kind: 'ok', text: t(enabled ? 'status.card.resumed' : 'status.card.paused') });
  }

  /** True when acknowledged. */
  async acknowledge(note: string): Promise<boolean> {
    const incident = await this.call(() => this.api.acknowledge(this.sensor().id, note));
    if (!incident) return false;
    this.feedback.set({
      kind: 'ok',
      text: incident.acknowledged_by
        ? t('status.card.acknowledgedBy', { user: incident.acknowledged_by })
        : t('status.card.acknowledged'),
    });
    return true;
  }

  private async call<T>(request: () => Promise<T>): Promise<T | undefined> {
    this.busy.set(true);
    this.error.set(undefined);
    this.feedback.set(undefined);
    try {
      return await request();
    } catch (failure) {
      this.error.set(ApiCallError.from(failure).message);
      return undefined;
    } finally {
      this.busy.set(false);
    }
  }
}
