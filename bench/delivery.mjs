// Delivery benchmark (issue 5): 200 sensors go down at once, each with 2 webhook channels, against
// a local receiver. Reports how long after the transition each webhook arrives (p50, p99; the
// transition time is the alert's timestamp, taken when the failing probe started, a millisecond
// before the transition on this local target), whether all 400 arrived, and the probe schedule's
// lag meanwhile.
import { createServer } from 'node:http';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { percentile, startBenchServer } from './support/server.mjs';

const PASSWORD = 'bench password 12345';
const SENSORS = 200;
const INTERVAL = 5;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startReceivers() {
  const state = { failing: false };
  const arrivals = new Map();
  const deliveries = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      if (req.url.startsWith('/s/')) {
        const key = req.url.slice(3);
        (arrivals.get(key) ?? arrivals.set(key, []).get(key)).push(performance.now());
        res.writeHead(state.failing ? 503 : 200).end('x');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString());
      deliveries.push({
        path: req.url,
        event: body.event,
        sensor: body.sensor?.id,
        latency: now - Date.parse(body.timestamp),
      });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, state, arrivals, deliveries, close: () => new Promise((resolve) => server.close(resolve)) };
}

function lagP99(arrivals, since) {
  const lags = [];
  for (const times of arrivals.values()) {
    const window = times.filter((t) => t >= since);
    for (let i = 1; i < window.length; i++) lags.push(Math.abs(window[i] - window[i - 1] - INTERVAL * 1000));
  }
  return percentile(lags, 99);
}

export async function run() {
  const receivers = await startReceivers();
  const server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const channelIds = [];
    for (const name of ['hook-a', 'hook-b']) {
      const res = await fetch(`${server.url}/api/channels`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, type: 'webhook', config: { url: `${receivers.url}/${name}` } }),
      });
      channelIds.push((await res.json()).id);
    }
    await createSensors(
      server.url,
      headers,
      Array.from({ length: SENSORS }, (_, i) => ({
        name: `d${i}`,
        type: 'http',
        target: `${receivers.url}/s/${i}`,
        interval: INTERVAL,
        retries: 1,
        channels: channelIds,
      })),
    );
    await sleep(INTERVAL * 1000 + 1000);
    const since = performance.now();
    receivers.state.failing = true;
    const deadline = Date.now() + 60_000;
    while (receivers.deliveries.length < SENSORS * 2 && Date.now() < deadline) await sleep(100);
    const downDone = receivers.deliveries.length;
    await sleep(INTERVAL * 1000);
    const latencies = receivers.deliveries.map((d) => d.latency);
    const distinct = new Set(receivers.deliveries.map((d) => `${d.path}:${d.sensor}:${d.event}`)).size;
    const result = {
      sensors: SENSORS,
      channels_per_sensor: 2,
      expected: SENSORS * 2,
      delivered: downDone,
      distinct,
      latency_ms: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
      probe_lag_p99_ms: Math.round(lagP99(receivers.arrivals, since) * 10) / 10,
    };
    console.log(
      `delivery: ${SENSORS} sensors down at once × 2 webhook channels: ${result.delivered}/${result.expected} delivered ` +
        `(${result.distinct} distinct, none lost: ${result.distinct === result.expected}); transition → webhook p50 ${result.latency_ms.p50} ms, ` +
        `p99 ${result.latency_ms.p99} ms, max ${result.latency_ms.max} ms; probe start lag p99 meanwhile ${result.probe_lag_p99_ms} ms`,
    );
    return result;
  } finally {
    await server.stop();
    await receivers.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
