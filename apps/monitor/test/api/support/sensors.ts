import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Incident, MaintenanceWindow, Sensor } from '@monitor/contracts';
import type { ProbeOutcome } from '@monitor/probes';
import { DataSource } from 'typeorm';
import { sqlClientFor } from '../../../src/core/database/sql-client';
import { EventBus, type MonitorEvents } from '../../../src/core/events/event-bus';
import { ResultWriter } from '../../../src/history/result-writer.service';
import { SchedulerService } from '../../../src/scheduler/scheduler.service';
import { SensorRuntimeService } from '../../../src/scheduler/sensor-runtime.service';
import type { MutableClock } from './clock';
import { call, Headers } from './http';
import type { TestApp } from './test-app';

export type { Incident, MaintenanceWindow, Sensor };

/** A real HTTP server on 127.0.0.1 whose answer the test sets; the target of probes that really run. */
export interface HttpTarget {
  url: string;
  port: number;
  /** Requests it has answered. */
  hits: number;
  status: number;
  close(): Promise<void>;
}

export async function startHttpTarget(status = 200): Promise<HttpTarget> {
  const target = { hits: 0, status } as HttpTarget;
  const server = http.createServer((_request, response) => {
    target.hits++;
    response.writeHead(target.status, { 'content-type': 'text/plain' });
    response.end(`status ${target.status}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.port = (server.address() as AddressInfo).port;
  target.url = `http://127.0.0.1:${target.port}/`;
  target.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return target;
}

/** A port on 127.0.0.1 that nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Everything the app publishes on one event kind from now on. */
export interface Recorder<K extends keyof MonitorEvents> {
  events: MonitorEvents[K][];
  clear(): void;
  stop(): void;
}

export function record<K extends keyof MonitorEvents>(t: TestApp, kind: K): Recorder<K> {
  const events: MonitorEvents[K][] = [];
  const subscription = t.app
    .get(EventBus)
    .on(kind)
    .subscribe((event) => events.push(event));
  return {
    events,
    clear: () => void events.splice(0),
    stop: () => subscription.unsubscribe(),
  };
}

export const failure = (message = 'HTTP 503'): ProbeOutcome => ({
  success: false,
  message,
  latencyMs: 12,
  statusCode: 503,
});

export const success = (): ProbeOutcome => ({
  success: true,
  message: 'HTTP 200',
  latencyMs: 8,
  statusCode: 200,
});

/** Sets a MutableClock to an absolute time (forwards only). */
export function moveTo(clock: MutableClock, at: number): void {
  if (at < clock.now()) throw new Error('the clock only moves forwards');
  clock.advance(at - clock.now());
}

/** Feeds one scheduled-probe outcome through the state machine, as the scheduler would. */
export async function feed(t: TestApp, id: number, outcome: ProbeOutcome, at: number): Promise<void> {
  await t.app.get(SensorRuntimeService).record(id, outcome, at);
}

/** Writes pending probe results and sensor runtime columns now (SQLite only: use `flushed` on both). */
export function flush(t: TestApp): void {
  t.app.get(ResultWriter).flush();
}

/** Writes pending probe results and sensor runtime columns, answering once they are stored (both backends). */
export async function flushed(t: TestApp): Promise<void> {
  await t.app.get(ResultWriter).flushed();
}

/** The runtime's once-a-second pass (reminders), with no maintenance window beginning. */
export async function runtimeTick(t: TestApp): Promise<void> {
  await t.app.get(SensorRuntimeService).tick([]);
}

/**
 * The scheduler's own once-a-second pass, which also notices maintenance windows that have begun.
 * With `startScheduler: false` its timer never runs, so the test calls it by hand.
 */
export async function schedulerTick(t: TestApp): Promise<void> {
  await (t.app.get(SchedulerService) as unknown as { tick(): Promise<void> }).tick();
}

export async function sql<T = Record<string, unknown>>(
  t: TestApp,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  // Through the SqlClient, so `?` placeholders work on both backends.
  return sqlClientFor(t.app.get(DataSource)).all<T>(query, params);
}

/** Creates a sensor (201 expected) and answers it. */
export async function createSensor(
  t: TestApp,
  headers: Headers,
  body: Record<string, unknown>,
): Promise<Sensor> {
  const res = await call<Sensor>(t, 'POST', '/api/sensors', body, headers);
  if (res.status !== 201) throw new Error(`create sensor failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function getSensor(t: TestApp, headers: Headers, id: number): Promise<Sensor> {
  const res = await call<Sensor>(t, 'GET', `/api/sensors/${id}`, undefined, headers);
  if (res.status !== 200) throw new Error(`get sensor failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface IncidentRow {
  id: number;
  sensor_id: number;
  started_at: number;
  resolved_at: number | null;
  cause: string;
  note: string;
  acknowledged: number;
  acknowledged_by: string | null;
}

export async function incidentRows(t: TestApp, sensorId: number): Promise<IncidentRow[]> {
  return sql<IncidentRow>(t, 'SELECT * FROM incidents WHERE sensor_id = ? ORDER BY id', [sensorId]);
}
