// An open-loop load of evenly spaced requests, run as its own process:
//   node paced-load.mjs <url> <connections> <requests per second> <seconds> [header=value …]
// autocannon's rate limit sends each connection's share of a second at the start of that second,
// all connections together, so 1,000/s arrives as one burst of 1,000 requests per second. A crowd
// of visitors does not synchronise like that: here each keep-alive connection sends one request per
// period, the connections staggered across it. Latency counts from the moment a request was due,
// so a slow answer that delays the next request is not hidden (no coordinated omission).
// Prints one JSON object like the fields the benchmarks read from autocannon.
import { Client } from 'undici';

const [url, connectionsArg, rateArg, secondsArg, ...headerArgs] = process.argv.slice(2);
const connections = Number(connectionsArg);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const headers = Object.fromEntries(
  headerArgs.map((h) => [h.slice(0, h.indexOf('=')), h.slice(h.indexOf('=') + 1)]),
);
const { origin, pathname, search } = new URL(url);
const periodMs = (connections / rate) * 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const latencies = [];
let non2xx = 0;
let errors = 0;
const start = performance.now() + 200;
const end = start + seconds * 1000;

async function connection(index) {
  const client = new Client(origin, { pipelining: 1 });
  for (let due = start + (index * periodMs) / connections; due < end; due += periodMs) {
    await sleep(due - performance.now());
    // A timer may fire up to a millisecond early (the loop's clock is coarse): count from then.
    const from = Math.min(due, performance.now());
    try {
      const res = await client.request({ path: pathname + search, method: 'GET', headers });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - from);
  }
  await client.close();
}

await Promise.all(Array.from({ length: connections }, (_, i) => connection(i)));
const elapsed = (performance.now() - start) / 1000;
latencies.sort((a, b) => a - b);
const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
const round = (ms) => Math.round(ms * 10) / 10;
console.log(
  JSON.stringify({
    requests: { average: latencies.length / elapsed, total: latencies.length },
    latency: { p50: round(at(50)), p99: round(at(99)), max: round(latencies.at(-1)) },
    non2xx,
    errors,
    timeouts: 0,
  }),
);
