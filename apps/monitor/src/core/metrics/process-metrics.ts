import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Probe outcomes counted per sensor, by the process that ran the probe. */
export interface ProbeCounts {
  success: number;
  failure: number;
}

/**
 * What this process counts at the source, for GET /metrics: probes it ran, alerts it delivered,
 * how late its scheduler started probes, and the certificates its probes saw. One registry per
 * application (never prom-client's global one), so several apps in one test process keep apart.
 * Counters are per process; in a cluster Prometheus tells the instances apart by its own
 * `instance` label.
 */
@Injectable()
export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly startLag = new Histogram({
    name: 'monitor_probe_start_lag_seconds',
    help: 'How late the scheduler started a probe after its due time.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly alerts = new Counter({
    name: 'monitor_alerts_total',
    help: 'Alert deliveries by channel name and final outcome (after retries).',
    labelNames: ['channel', 'result'] as const,
    registers: [this.registry],
  });
  private readonly probes = new Map<number, ProbeCounts>();
  private readonly certificates = new Map<number, number>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The scheduler fired a probe `lagMs` after it was due. */
  probeStarted(lagMs: number): void {
    this.startLag.observe(Math.max(0, lagMs) / 1000);
  }

  /** A scheduled probe of the sensor finished; `certExpiresAt` when it saw a TLS certificate. */
  probeFinished(sensorId: number, success: boolean, certExpiresAt?: number): void {
    let counts = this.probes.get(sensorId);
    if (!counts) this.probes.set(sensorId, (counts = { success: 0, failure: 0 }));
    if (success) counts.success++;
    else counts.failure++;
    if (certExpiresAt !== undefined) this.certificates.set(sensorId, certExpiresAt);
  }

  /** An alert's delivery through a channel ended, sent or failed for good. */
  alertFinished(channel: string, sent: boolean): void {
    this.alerts.inc({ channel, result: sent ? 'sent' : 'failed' });
  }

  probeCounts(sensorId: number): ProbeCounts | undefined {
    return this.probes.get(sensorId);
  }

  certificateExpiry(sensorId: number): number | undefined {
    return this.certificates.get(sensorId);
  }

  /** Drops what is kept of sensors that no longer exist. */
  forgetAllBut(exists: (sensorId: number) => boolean): void {
    for (const id of this.probes.keys()) if (!exists(id)) this.probes.delete(id);
    for (const id of this.certificates.keys()) if (!exists(id)) this.certificates.delete(id);
  }
}
