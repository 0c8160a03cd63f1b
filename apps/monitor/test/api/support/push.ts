import type { StoredProbeResult } from '@monitor/contracts';
import { SchedulerService } from '../../../src/scheduler/scheduler.service';
import { call, Headers } from './http';
import { flush } from './sensors';
import type { TestApp } from './test-app';

/**
 * Starts the scheduler (it watches push deadlines only once started) and stops its own
 * once-a-second timer, so the test alone decides when deadlines are checked (schedulerTick).
 */
export function startWatching(t: TestApp): void {
  const scheduler = t.app.get(SchedulerService);
  scheduler.start();
  clearInterval((scheduler as unknown as { ticker: NodeJS.Timeout }).ticker);
}

/** The sensor's stored results, newest first (pending ones written first). */
export async function results(t: TestApp, headers: Headers, id: number): Promise<StoredProbeResult[]> {
  await flush(t);
  const res = await call<StoredProbeResult[]>(t, 'GET', `/api/sensors/${id}/results`, undefined, headers);
  expect(res.status).toBe(200);
  return res.body;
}

/** A push: GET with the query, or POST with the query and a JSON body. */
export const push = (t: TestApp, token: string, query = '', body?: unknown) =>
  call<{ ok?: true; error?: string }>(
    t,
    body === undefined ? 'GET' : 'POST',
    `/api/push/${token}${query}`,
    body,
  );

export async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
