import { SAMPLE_SENSORS } from './sample-dataset';
import { inventHistory } from './sample-history';

const TO = Date.UTC(2026, 10, 21, 12);
const FROM = TO - 7 * 86_400_000;

describe('inventHistory', () => {
  const shop = SAMPLE_SENSORS.find((s) => s.name === 'Shop API')!;

  it('gives one result per interval over the week, oldest first, inside the window', () => {
    const { results } = inventHistory(shop, FROM, TO);
    expect(results.length).toBeGreaterThanOrEqual(7 * 288 - 1);
    expect(results.length).toBeLessThanOrEqual(7 * 288);
    expect(results[0].ts).toBeGreaterThanOrEqual(FROM);
    expect(results.at(-1)!.ts).toBeLessThan(TO);
    expect(results.every((r, i) => i === 0 || r.ts - results[i - 1].ts === 300_000)).toBe(true);
  });

  it('turns each invented outage into a run of failures with its message, and reports it', () => {
    const { results, outages } = inventHistory(shop, FROM, TO);
    expect(outages.map((o) => o.cause)).toEqual(['HTTP 502', 'timed out after 10 s']);
    for (const outage of outages) {
      const inside = results.filter((r) => r.ts >= outage.startedAt && r.ts < outage.resolvedAt);
      expect(inside.length).toBeGreaterThanOrEqual(2);
      expect(inside.every((r) => !r.success && r.message === outage.cause)).toBe(true);
      expect(results.find((r) => r.ts === outage.resolvedAt)?.success).toBe(true);
    }
  });

  it('is the same on every call, with plausible latency on successes only', () => {
    const a = inventHistory(shop, FROM, TO);
    expect(inventHistory(shop, FROM, TO)).toEqual(a);
    const ok = a.results.filter((r) => r.success);
    expect(ok.every((r) => r.latencyMs !== null && r.latencyMs > 0 && r.latencyMs < 140 * 5)).toBe(true);
    expect(a.results.filter((r) => !r.success).every((r) => r.latencyMs === null)).toBe(true);
  });

  it('gives a sensor without outages or flakiness an unbroken record', () => {
    const self = SAMPLE_SENSORS.find((s) => s.name === 'Monitor itself')!;
    const { results, outages } = inventHistory(self, FROM, TO);
    expect(outages).toEqual([]);
    expect(results.every((r) => r.success && r.message === 'HTTP 200')).toBe(true);
  });
});
