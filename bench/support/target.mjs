// A keep-alive HTTP target on 127.0.0.1 that records when each sensor's probe arrives.
// Sensors point at /s/<key>; arrivals are kept per key. Paths under /fail/ answer 500, and so do
// the keys in `failing` (a set the caller may change while the target runs).
import { createServer } from 'node:http';

export async function startTarget({ failing = new Set() } = {}) {
  const arrivals = new Map();
  const server = createServer((req, res) => {
    const key = req.url.slice(3);
    const list = arrivals.get(key);
    const now = performance.now();
    if (list) list.push(now);
    else arrivals.set(key, [now]);
    res.writeHead(req.url.startsWith('/fail/') || failing.has(key) ? 500 : 200, {
      'content-type': 'text/plain',
      'content-length': '2',
    });
    res.end('ok');
  });
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    failing,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
