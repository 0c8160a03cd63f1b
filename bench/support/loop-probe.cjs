// Preloaded into the server under test (node --require): measures the server's own event-loop
// delay and prints it as one JSON line on stderr, then resets, each time it receives SIGUSR2.
const { monitorEventLoopDelay } = require('node:perf_hooks');

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  if (process.env.BENCH_GC && global.gc) global.gc();
  const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;
  process.stderr.write(
    `${JSON.stringify({
      loop_delay_ms: {
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
      },
      memory_mib: Object.fromEntries(
        Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1048576)]),
      ),
    })}\n`,
  );
  histogram.reset();
});
