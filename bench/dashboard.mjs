// Dashboard benchmark in headless Chromium (Debian's /usr/bin/chromium or $CHROMIUM_PATH) at
// 1280x800 with 2,000 http sensors probing a local target every 10 s (200 results/s), for each
// density of the status page (cards, list, wall):
// - time from navigation to the status page showing every sensor that fits the window (cold
//   browser profile each run, so nothing comes from the cache);
// - how many sensors are visible without scrolling;
// - JavaScript and all bytes transferred for that first page, as the browser received them;
// - long tasks (over 50 ms) on the page during half a minute of the live result stream, and how
//   many result events the page received meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { apiKeyFor, createSensors } from './support/api.mjs';
import { percentile, startBenchServer } from './support/server.mjs';
import { startTarget } from './support/target.mjs';

const PASSWORD = 'bench password 12345';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Runs in the page before any script: records when the status page first shows every sensor that
 * fits the window in the density asked for (the last drawn sensor reaches the bottom of the window,
 * or all sensors are drawn), counts the `result` events of the live stream, and keeps every long task.
 */
const PAGE_PROBE = `
  window.__bench = { gridReady: null, results: 0, longTasks: [], streamOpened: null };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.longTasks.push({ at: entry.startTime, ms: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  const NativeEventSource = window.EventSource;
  window.EventSource = class extends NativeEventSource {
    constructor(...args) {
      super(...args);
      this.addEventListener('result', () => window.__bench.results++);
      this.addEventListener('open', () => (window.__bench.streamOpened ??= performance.now()));
    }
  };
  const check = () => {
    const board = document.querySelector('[data-testid="sensor-board"][data-density="' + window.__benchDensity + '"]');
    const drawn = board ? board.querySelectorAll('[data-testid^="sensor-row-"][data-status]') : [];
    const last = drawn[drawn.length - 1];
    const filled = last && (last.getBoundingClientRect().bottom >= window.innerHeight || drawn.length >= window.__benchTotal);
    if (filled) window.__bench.gridReady = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

/** Sensors drawn entirely inside the window, without scrolling. */
const VISIBLE = `[...document.querySelectorAll('[data-testid="sensor-board"] [data-testid^="sensor-row-"][data-status]')]
  .filter((el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }).length`;

async function openPage(url, cookies, total, density) {
  const profile = mkdtempSync(join(tmpdir(), 'monitor-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    headless: true,
    args: ARGS,
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    viewport: { width: 1280, height: 800 },
  });
  await context.addCookies(cookies);
  const page = context.pages()[0] ?? (await context.newPage());
  await page.addInitScript(
    `window.__benchTotal = ${total}; window.__benchDensity = '${density}';${PAGE_PROBE}`,
  );
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const types = new Map();
  const bytes = { script: 0, all: 0 };
  cdp.on('Network.responseReceived', (event) => types.set(event.requestId, event.type));
  cdp.on('Network.loadingFinished', (event) => {
    bytes.all += event.encodedDataLength;
    if (types.get(event.requestId) === 'Script') bytes.script += event.encodedDataLength;
  });
  return {
    page,
    bytes,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function signInCookies(url) {
  const login = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const [pair] = login.headers.getSetCookie()[0].split(';');
  const [name, value] = pair.split('=');
  return [{ name, value, url }];
}

/** Cold loads of `/` in one density, then a stream period on an open page. */
async function measureDensity(url, cookies, sensors, density, loads, streamSeconds) {
  const readyMs = [];
  /** Long tasks between navigation and the full page, per load (reported, not a target). */
  const loadTasks = [];
  let firstBytes;
  let visible = 0;
  for (let i = 0; i < loads; i++) {
    const browser = await openPage(url, cookies, sensors, density);
    try {
      await browser.page.goto(`${url}/`, { waitUntil: 'commit' });
      await browser.page.waitForFunction(() => window.__bench?.gridReady != null, null, {
        timeout: 30_000,
        polling: 100,
      });
      readyMs.push(await browser.page.evaluate('window.__bench.gridReady'));
      loadTasks.push(await browser.page.evaluate('window.__bench.longTasks.map((t) => t.ms)'));
      if (process.env.BENCH_VERBOSE) {
        console.log(
          await browser.page.evaluate(
            `JSON.stringify([window.__bench.streamOpened, window.__bench.gridReady, window.__bench.longTasks.map((t) => [Math.round(t.at), Math.round(t.ms)])]) + JSON.stringify(performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd), e.encodedBodySize]))`,
          ),
        );
      }
      await browser.page.waitForLoadState('networkidle').catch(() => undefined);
      if (i === 0) {
        firstBytes = { ...browser.bytes };
        visible = await browser.page.evaluate(VISIBLE);
      }
    } finally {
      await browser.close();
    }
  }

  // The live stream on an open page: the page's long tasks after it settled.
  const browser = await openPage(url, cookies, sensors, density);
  let stream;
  try {
    await browser.page.goto(`${url}/`);
    await browser.page.waitForFunction(() => window.__bench?.gridReady != null, null, { timeout: 30_000 });
    await sleep(3000);
    const from = await browser.page.evaluate('({ at: performance.now(), results: window.__bench.results })');
    await sleep(streamSeconds * 1000);
    stream = await browser.page.evaluate(
      `(() => { const from = ${JSON.stringify(from)}; const b = window.__bench;
        return { seconds: (performance.now() - from.at) / 1000, results: b.results - from.results,
                 longTasks: b.longTasks.filter((t) => t.at >= from.at).map((t) => t.ms) }; })()`,
    );
  } finally {
    await browser.close();
  }
  return {
    ready_ms: {
      runs: readyMs.map((ms) => round(ms)),
      p50: round(percentile(readyMs, 50)),
      max: round(Math.max(...readyMs)),
    },
    visible_at_1280x800: visible,
    load_long_tasks: {
      per_load: loadTasks.map((tasks) => tasks.length),
      longest_ms: round(Math.max(0, ...loadTasks.flat())),
    },
    first_page_js_kib: round(firstBytes.script / 1024),
    first_page_all_kib: round(firstBytes.all / 1024),
    stream: {
      seconds: round(stream.seconds),
      results_per_second: round(stream.results / stream.seconds),
      long_tasks: stream.longTasks.length,
      longest_task_ms: stream.longTasks.length ? round(Math.max(...stream.longTasks)) : 0,
    },
  };
}

/**
 * 2,000 sensors (one in twenty failing, so every state is on the page) probed every 10 s; each density
 * in turn, chosen through the account's `ui.density`.
 */
export async function run({
  sensors = 2000,
  interval = 10,
  loads = 5,
  streamSeconds = 30,
  // A subset, to measure one change quickly.
  densities = ['cards', 'list', 'wall'],
} = {}) {
  const target = await startTarget();
  const server = await startBenchServer({ env: { MONITOR_ADMIN_PASSWORD: PASSWORD } });
  try {
    const headers = await apiKeyFor(server.url, PASSWORD);
    const bodies = Array.from({ length: sensors }, (_, i) => ({
      name: `web-${String(i).padStart(4, '0')}`,
      type: 'http',
      target: `${target.url}/${i % 20 === 7 ? 'fail' : 's'}/${i}`,
      interval,
      group: `group-${i % 20}`,
      tags: [`tag-${i % 7}`],
      options: { timeout: Math.min(10, interval) },
    }));
    await createSensors(server.url, headers, bodies);
    const cookies = await signInCookies(server.url);
    const asAdmin = (path, method, body) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          origin: server.url,
          cookie: `${cookies[0].name}=${cookies[0].value}`,
        },
        body: JSON.stringify(body),
      });
    // The tour would sit above the sensors on a first visit; it is finished for this account.
    await asAdmin('/api/onboarding/tour', 'POST', { version: 1000 });
    await sleep(interval * 1000 + 2000);

    const figures = { sensors, densities: {} };
    for (const density of densities) {
      const res = await asAdmin('/api/settings', 'PUT', { ui: { density } });
      if (res.status !== 200)
        throw new Error(`PUT /api/settings answered ${res.status}: ${await res.text()}`);
      const d = await measureDensity(server.url, cookies, sensors, density, loads, streamSeconds);
      figures.densities[density] = d;
      console.log(
        `dashboard ${density}: ${sensors} sensors, page complete p50 ${d.ready_ms.p50} ms (max ${d.ready_ms.max} ms over ${loads} cold loads), ${d.visible_at_1280x800} sensors visible at 1280x800 without scrolling`,
      );
      console.log(
        `dashboard ${density}: long tasks while loading: ${d.load_long_tasks.per_load.join(', ')} per load, longest ${d.load_long_tasks.longest_ms} ms; first page ${d.first_page_js_kib} KiB of JavaScript, ${d.first_page_all_kib} KiB in all`,
      );
      console.log(
        `dashboard ${density}: ${d.stream.results_per_second} results/s streamed for ${d.stream.seconds} s: ${d.stream.long_tasks} long tasks over 50 ms (longest ${d.stream.longest_task_ms} ms)`,
      );
    }
    return figures;
  } finally {
    await server.stop();
    await target.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
