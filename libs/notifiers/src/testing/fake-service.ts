import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Notification } from '../notifier';

/** One request as the fake received it, body as raw bytes. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** What the fake answers to request number `index` (0-based); 'hang' never answers. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface FakeService {
  /** http://127.0.0.1:<port> */
  base: string;
  received: Received[];
  close(): Promise<void>;
}

/** A fake of a remote service on 127.0.0.1 that records every request and answers per `answer`. */
export async function fakeService(
  answer: (index: number, request: Received) => Answer,
): Promise<FakeService> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const reply = answer(received.length - 1, request);
      if (reply === 'hang') return;
      res
        .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        .end(reply.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A typical down alert. */
export function sampleNotification(overrides: Partial<Notification> = {}): Notification {
  return {
    kind: 'down',
    title: 'DOWN: Web shop',
    message: 'HTTP 503 from https://shop.example.com',
    url: 'http://monitor.local/sensors/s1',
    timestamp: '2025-01-02T03:04:05.000Z',
    sensor: {
      id: 7,
      name: 'Web shop',
      type: 'http',
      target: 'https://shop.example.com',
      group: 'prod',
      tags: ['web', 'eu'],
    },
    result: {
      ts: '2025-01-02T03:04:04.000Z',
      success: false,
      status_code: 503,
      message: 'HTTP 503',
      latency_ms: 120,
    },
    incident: { id: 12, started_at: '2025-01-02T03:04:04.000Z', cause: 'HTTP 503' },
    ...overrides,
  };
}

/** A signal that stays open for the whole test. */
export function openSignal(): AbortSignal {
  return new AbortController().signal;
}

/** Runs `promise` and returns what it threw (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection');
}
