// Slow and over-cap clients against the built server: 20 connections trickling their headers a
// byte a second, 20 trickling a body a byte a second, 20 that never send anything, and 100
// uploads of 4 MiB to a 1 MiB route written in 128 KiB pieces without `Expect`. Reports when the
// server closed each kind (targets: headers ~10 s, body ~30 s after the headers) and how many
// uploads read their 413; /healthz answers meanwhile.
import * as net from 'node:net';
import { percentile, startBenchServer } from './support/server.mjs';

const SLOW = 20;
const UPLOADS = 100;

function connection(port, { head = '', trickle = '', pieces = [] } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks = [];
    let error = '';
    let timer;
    const socket = net.connect(port, '127.0.0.1', () => {
      if (head) socket.write(head);
      const rest = [...pieces];
      const next = () => {
        const piece = rest.shift();
        if (piece && !socket.destroyed) socket.write(piece, () => setTimeout(next, 0));
      };
      next();
      let i = 0;
      if (trickle)
        timer = setInterval(() => {
          if (i < trickle.length && !socket.destroyed) socket.write(trickle[i++]);
        }, 1000);
    });
    const limit = setTimeout(() => socket.destroy(), 120_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (e) => (error = e.code));
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(limit);
      const text = Buffer.concat(chunks).toString();
      resolve({ ms: performance.now() - started, status: Number(text.slice(9, 12)) || 0, error });
    });
  });
}

const summary = (results) => ({
  closed_after_s: {
    min: +(Math.min(...results.map((r) => r.ms)) / 1000).toFixed(1),
    max: +(Math.max(...results.map((r) => r.ms)) / 1000).toFixed(1),
  },
  statuses: results.reduce((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {}),
});

export async function run() {
  const server = await startBenchServer();
  const port = Number(new URL(server.url).port);
  try {
    const healthz = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const started = performance.now();
        await (await fetch(`${server.url}/healthz`)).arrayBuffer();
        healthz.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const many = (n, options) => Promise.all(Array.from({ length: n }, () => connection(port, options)));
    const [headers, body, idle] = await Promise.all([
      many(SLOW, { head: 'GET /healthz HTTP/1.1\r\nHost: x\r\n', trickle: 'X-Slow: ' + 'a'.repeat(200) }),
      many(SLOW, {
        head: 'POST /api/login HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n',
        trickle: ' '.repeat(500),
      }),
      many(SLOW, {}),
    ]);
    const size = 4 * 1024 * 1024;
    const pieces = Array.from({ length: size / (128 * 1024) }, () => Buffer.alloc(128 * 1024, 'a'));
    const uploads = [];
    for (let i = 0; i < UPLOADS; i++) {
      uploads.push(
        await connection(port, {
          head: `POST /api/login HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
          pieces,
        }),
      );
    }
    probing = false;
    await probe;
    const result = {
      slow_headers: summary(headers),
      slow_body: summary(body),
      idle: summary(idle),
      over_cap_uploads: { sent: UPLOADS, read_413: uploads.filter((u) => u.status === 413).length },
      healthz_meanwhile_ms: { p50: percentile(healthz, 50), p99: percentile(healthz, 99) },
    };
    const s = (r) =>
      `closed after ${r.closed_after_s.min}–${r.closed_after_s.max} s, ${JSON.stringify(r.statuses)}`;
    console.log(
      `slow clients: ${SLOW} slow-header ${s(result.slow_headers)}; ${SLOW} slow-body ${s(result.slow_body)}; ` +
        `${SLOW} idle ${s(result.idle)}; over-cap uploads ${result.over_cap_uploads.read_413}/${UPLOADS} read their 413; ` +
        `/healthz meanwhile p50 ${result.healthz_meanwhile_ms.p50.toFixed(1)} ms, p99 ${result.healthz_meanwhile_ms.p99.toFixed(1)} ms`,
    );
    return result;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
