import { ProcessMetrics } from './process-metrics';

describe('ProcessMetrics', () => {
  it('counts probe outcomes per sensor, keeps the last certificate seen, and forgets deleted sensors', () => {
    const metrics = new ProcessMetrics();
    metrics.probeFinished(1, true, 5000);
    metrics.probeFinished(1, false);
    metrics.probeFinished(1, true);
    metrics.probeFinished(2, false);
    expect(metrics.probeCounts(1)).toEqual({ success: 2, failure: 1 });
    expect(metrics.certificateExpiry(1)).toBe(5000);
    expect(metrics.certificateExpiry(2)).toBeUndefined();
    metrics.forgetAllBut((id) => id === 2);
    expect(metrics.probeCounts(1)).toBeUndefined();
    expect(metrics.probeCounts(2)).toEqual({ success: 0, failure: 1 });
  });

  it('exposes alert outcomes per channel, the start lag in seconds and the default process metrics', async () => {
    const metrics = new ProcessMetrics();
    metrics.alertFinished('ops', true);
    metrics.alertFinished('ops', true);
    metrics.alertFinished('ops', false);
    metrics.probeStarted(30);
    metrics.probeStarted(-5);
    const text = await metrics.registry.metrics();
    expect(text).toContain('monitor_alerts_total{channel="ops",result="sent"} 2');
    expect(text).toContain('monitor_alerts_total{channel="ops",result="failed"} 1');
    expect(text).toContain('monitor_probe_start_lag_seconds_bucket{le="0.001"} 1');
    expect(text).toContain('monitor_probe_start_lag_seconds_bucket{le="0.05"} 2');
    expect(text).toContain('monitor_probe_start_lag_seconds_sum 0.03');
    expect(text).toContain('nodejs_eventloop_lag_max_seconds');
    expect(text).toContain('process_resident_memory_bytes');
  });
});
