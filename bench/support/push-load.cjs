// The load generator of bench/push.mjs, run as its own process: autocannon with every request to
// the next token in turn (so one token sees one request in every 1,000 and stays under its 10/s
// limit as long as the whole load stays under 10,000/s). Prints autocannon's result as JSON.
// Usage: node push-load.cjs <base url> <tokens file> <connections> <seconds> [rate per second]
const { readFileSync } = require('node:fs');
const autocannon = require('autocannon');

const [url, tokensFile, connections, seconds, rate] = process.argv.slice(2);
const tokens = readFileSync(tokensFile, 'utf8').split('\n').filter(Boolean);
let next = 0;

const instance = autocannon(
  {
    url,
    connections: Number(connections),
    duration: Number(seconds),
    ...(rate ? { overallRate: Number(rate) } : {}),
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `/api/push/${tokens[next++ % tokens.length]}?status=up&latency_ms=12`,
        }),
      },
    ],
  },
  (error, result) => {
    if (error) {
      console.error(error.message);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
  },
);
instance.on('error', () => undefined);
