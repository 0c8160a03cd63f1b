// A crowd of HTTP clients, run as its own process so the load does not delay the benchmark's own
// probe target: node load.mjs '<json>' with {url, connections, seconds, rate?, headers?, paths?}.
// Without `rate`, autocannon as fast as it goes (closed loop). With it, evenly spaced requests at
// that rate: autocannon's own rate limit sends each connection's share of a second at its start,
// all connections together, so 1,000/s would arrive as one burst a second, which a crowd of
// visitors does not do. Here each keep-alive connection sends one request per period, the
// connections staggered across it, and latency counts from the moment a request was due, so a
// slow answer that delays the next request is not hidden. `paths`: a file of request paths (one a
// line) taken in turn instead of the url's own. Prints {requests_per_s, latency_ms, non_2xx,
// errors, total}.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Client } from 'undici';

const { url, connections, seconds, rate, headers = {}, paths: pathsFile } = JSON.parse(process.argv[2]);
const { origin, pathname, search } = new URL(url);
const paths = pathsFile ? readFileSync(pathsFile, 'utf8').split('\n').filter(Boolean) : [pathname + search];
let next = 0;
const nextPath = () => paths[next++ % paths.length];
const round = (ms) => Math.round(ms * 10) / 10;

function closedLoop() {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        headers,
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: nextPath() }) }],
      },
      (error, r) =>
        error
          ? reject(error)
          : resolve({
              requests_per_s: Math.round(r.requests.average),
              latency_ms: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
              non_2xx: r.non2xx,
              errors: r.errors + r.timeouts,
              total: r.requests.total,
            }),
    );
    instance.on('error', () => undefined);
  });
}

async function paced() {
  const periodMs = (connections / rate) * 1000;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  const latencies = [];
  let non2xx = 0;
  let errors = 0;
  const start = performance.now() + 200;
  const end = start + seconds * 1000;
  const connection = async (index) => {
    const client = new Client(origin, { pipelining: 1 });
    for (let due = start + (index * periodMs) / connections; due < end; due += periodMs) {
      await sleep(due - performance.now());
      // A timer may fire up to a millisecond early (the loop's clock is coarse): count from then.
      const from = Math.min(due, performance.now());
      try {
        const res = await client.request({ path: nextPath(), method: 'GET', headers });
        await res.body.dump();
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - from);
    }
    await client.close();
  };
  await Promise.all(Array.from({ length: connections }, (_, i) => connection(i)));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  return {
    requests_per_s: Math.round(latencies.length / elapsed),
    latency_ms: { p50: round(at(50)), p99: round(at(99)), max: round(latencies.at(-1)) },
    non_2xx: non2xx,
    errors,
    total: latencies.length,
  };
}

console.log(JSON.stringify(await (rate ? paced() : closedLoop())));
