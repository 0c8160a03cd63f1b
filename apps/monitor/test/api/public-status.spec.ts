import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import type { PublicStatusPage } from '@monitor/contracts';
import { assertWellFormedXml } from '@monitor/domain/status-page/testing/well-formed-xml';
import { UnitOfWork } from '../../src/core/database/unit-of-work';
import { HistoryRepository } from '../../src/history/history.repository';
import { MutableClock } from './support/clock';
import { call, Headers, setupAdmin } from './support/http';
import {
  createSensor,
  failure,
  feed,
  flush,
  getSensor,
  incidentRows,
  Sensor,
  success,
} from './support/sensors';
import { get, storePage } from './support/public-status';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 12:30 UTC: today's hours so far are [00:00, 12:00) summarised, the last full day [yesterday 12:00, 12:00). */
const NOW = Date.parse('2026-11-21T12:30:00Z');
const TODAY = Date.parse('2026-11-21T00:00:00Z');

/** Every private value of the sensors on the page: none may appear in any public answer. */
const PRIVATE = {
  target: 'http://127.0.0.1:9/TARGET-PRIVATE-7c1',
  header: 'Bearer HEADER-PRIVATE-4e2',
  keyword: 'KEYWORD-PRIVATE-9a3',
  group: 'GROUP-PRIVATE-2b8',
  tag: 'TAG-PRIVATE-5d6',
  site: 'SITE-PRIVATE-8f0',
  message: 'MESSAGE-PRIVATE-1c4',
  note: 'NOTE-PRIVATE-6e9',
  hidden: 'HIDDEN-SENSOR-3a7',
};

/** Results of `sensorId` at the given times, summarised into hourly and daily buckets by the history's writes. */
async function storeHistory(t: TestApp, sensorId: number, results: { at: number; ok: boolean }[]) {
  const history = t.app.get(HistoryRepository);
  await t.app.get(UnitOfWork).transaction(async (tx) => {
    for (const r of results) {
      await history.insertResult(
        tx,
        {
          sensorId,
          ts: r.at,
          success: r.ok,
          statusCode: r.ok ? 200 : 503,
          latencyMs: r.ok ? 100 : null,
          message: PRIVATE.message,
        },
        r.at,
        '',
      );
    }
    await history.summariseHours(tx, [sensorId], NOW - 40 * DAY, TODAY + 12 * HOUR);
    await history.summariseDays(tx, [sensorId], NOW - 40 * DAY, TODAY);
  });
}

describe('public status pages: JSON, HTML and badges without authentication', () => {
  let dataDir: string;
  let t: TestApp;
  let clock: MutableClock;
  let admin: Headers;
  let web: Sensor;
  let api: Sensor;
  let hidden: Sensor;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-public-'));
    clock = new MutableClock(NOW);
    t = await startTestApp({ startScheduler: false, clock, dataDir });
    admin = await setupAdmin(t);
    expect((await call(t, 'POST', '/api/sites', { name: PRIVATE.site }, admin)).status).toBe(201);
    const privateFields = {
      type: 'http',
      target: PRIVATE.target,
      retries: 1,
      group: PRIVATE.group,
      tags: [PRIVATE.tag],
      site: PRIVATE.site,
      options: { headers: { Authorization: PRIVATE.header }, keyword: PRIVATE.keyword },
    };
    web = await createSensor(t, admin, { ...privateFields, name: 'Web shop' });
    api = await createSensor(t, admin, { ...privateFields, name: 'API' });
    hidden = await createSensor(t, admin, { ...privateFields, name: PRIVATE.hidden });
    // Web: up on three days (one with a failed probe) and today; nothing on the other days.
    await storeHistory(t, web.id, [
      { at: TODAY - 3 * DAY + HOUR, ok: true },
      { at: TODAY - DAY + HOUR, ok: true },
      { at: TODAY - DAY + 2 * HOUR, ok: false },
      { at: TODAY + HOUR, ok: true },
    ]);
    await feed(t, web.id, success(), NOW - 1000);
    // API: an incident with a private cause and note, resolved two days ago.
    await feed(t, api.id, failure(PRIVATE.message), TODAY - 2 * DAY + HOUR);
    await feed(t, api.id, failure(PRIVATE.message), TODAY - 2 * DAY + HOUR + 60_000);
    const incidents = await incidentRows(t, api.id);
    expect(incidents).toHaveLength(1);
    const ack = await call(
      t,
      'POST',
      `/api/incidents/${incidents[0]!.id}/ack`,
      { note: PRIVATE.note },
      admin,
    );
    expect(ack.status).toBe(200);
    await feed(t, api.id, success(), TODAY - 2 * DAY + 3 * HOUR);
    await feed(t, hidden.id, failure(PRIVATE.message), NOW - 3000);
    await feed(t, hidden.id, failure(PRIVATE.message), NOW - 2000);
    await flush(t);
    await storePage(t, admin, { slug: 'acme', published: true }, [
      { title: 'Shop', sensors: [web.id, api.id] },
      { title: 'Backend', sensors: [api.id] },
    ]);
    await storePage(t, admin, { slug: 'draft', published: false }, [
      { title: 'Everything', sensors: [hidden.id] },
    ]);
  });

  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 404 for an unknown or unpublished page, and for a badge of a sensor not on a published page', async () => {
    for (const slug of ['nope', 'draft']) {
      const json = await get(t, `/api/public/status-pages/${slug}`);
      expect(json.status).toBe(404);
      expect(await json.json()).toEqual({ error: expect.stringContaining(slug) });
      const html = await get(t, `/status/${slug}`);
      expect(html.status).toBe(404);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await html.text()).toMatch(/^<!DOCTYPE html>/);
    }
    for (const url of [
      `/badge/draft/${encodeURIComponent(PRIVATE.hidden)}/status.svg`,
      `/badge/acme/${encodeURIComponent(PRIVATE.hidden)}/status.svg`,
      '/badge/acme/nobody/uptime.svg',
      '/badge/nope/API/latency.svg',
    ]) {
      const res = await get(t, url);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
    const bad = await get(t, '/badge/acme/API/uptime.svg?window=7d');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'window must be one of 1d, 30d, 90d' });
  });

  it('with show_uptime false publishes no uptime (JSON, bar titles, hidden text) and no latency badge', async () => {
    await storePage(t, admin, { slug: 'quiet', published: true, show_uptime: false }, [
      { title: 'Shop', sensors: [web.id, api.id] },
    ]);
    const shown = (await (await get(t, '/api/public/status-pages/acme')).json()) as PublicStatusPage;
    const shownDays = shown.sections.flatMap((s) => s.sensors.flatMap((x) => x.days));
    expect(shownDays.some((d) => d.uptime !== null)).toBe(true);

    const json = await get(t, '/api/public/status-pages/quiet');
    expect(json.status).toBe(200);
    const text = await json.text();
    expect(text).not.toMatch(/"(uptime|d1|d30|d90)":\d/);
    const page = JSON.parse(text) as PublicStatusPage;
    const days = page.sections.flatMap((s) => s.sensors.flatMap((x) => x.days));
    expect(days.length).toBeGreaterThan(0);
    expect(days.filter((d) => d.uptime !== null)).toEqual([]);
    // How each day went (its colour) still shows.
    expect(days.some((d) => d.worst === 'up' || d.worst === 'degraded')).toBe(true);

    for (const language of ['en', 'de']) {
      const html = await (await get(t, '/status/quiet', { 'accept-language': language })).text();
      expect(html).toContain('<i class="');
      expect(html).not.toMatch(/\d %/);
      const full = await (await get(t, '/status/acme', { 'accept-language': language })).text();
      expect(full).toMatch(/\d %/);
    }

    const latency = await get(t, '/badge/quiet/Web%20shop/latency.svg');
    expect(latency.status).toBe(404);
    expect(await latency.json()).toEqual({ error: expect.any(String) });
    expect((await get(t, '/badge/acme/Web%20shop/latency.svg')).status).toBe(200);
    expect((await get(t, '/badge/quiet/Web%20shop/status.svg')).status).toBe(200);
    const uptime = await get(t, '/badge/quiet/Web%20shop/uptime.svg');
    expect(uptime.status).toBe(200);
    expect(await uptime.text()).toContain('>no data</text>');
  });

  it('answers the page: names, states, one day per history day (null without data), incidents', async () => {
    const res = await get(t, '/api/public/status-pages/acme');
    expect(res.status).toBe(200);
    const page = (await res.json()) as PublicStatusPage;
    expect(page).toMatchObject({
      slug: 'acme',
      title: 'Acme <b>status</b> & "more"',
      status: 'operational',
      updated_at: new Date(NOW).toISOString(),
      announcements: [
        { title: 'Planned work', severity: 'warning', created_at: new Date(NOW).toISOString() },
      ],
    });
    expect(page.sections.map((s) => [s.title, s.sensors.map((x) => x.name)])).toEqual([
      ['Shop', ['Web shop', 'API']],
      ['Backend', ['API']],
    ]);
    const [shop, apiRow] = page.sections[0]!.sensors;
    expect(shop!.status).toBe('up');
    expect(shop!.days).toHaveLength(30);
    expect(shop!.days[0]!.date).toBe('2026-10-23');
    expect(shop!.days.slice(-4)).toEqual([
      { date: '2026-11-18', uptime: 100, worst: 'up' },
      { date: '2026-11-19', uptime: null, worst: null },
      { date: '2026-11-20', uptime: 50, worst: 'degraded' },
      { date: '2026-11-21', uptime: 100, worst: 'up' },
    ]);
    expect(shop!.days.filter((d) => d.uptime === null)).toHaveLength(27);
    // d1 covers the last 24 full hours: only today's 01:00 result.
    expect(shop!.uptime).toEqual({ d1: 100, d30: 75, d90: 75 });
    expect(apiRow!.days.find((d) => d.date === '2026-11-19')!.worst).toBe('down');
    const [stored] = await incidentRows(t, api.id);
    expect(page.incidents).toEqual([
      {
        sensor: 'API',
        started_at: new Date(Number(stored!.started_at)).toISOString(),
        resolved_at: new Date(TODAY - 2 * DAY + 3 * HOUR).toISOString(),
      },
    ]);
  });

  it('never shows a target, message, cause, note, option, group, tag, site, id or another sensor', async () => {
    const answers: string[] = [];
    const json = await (await get(t, '/api/public/status-pages/acme')).text();
    answers.push(json);
    answers.push(await (await get(t, '/status/acme', { 'accept-language': 'en' })).text());
    answers.push(await (await get(t, '/status/acme', { 'accept-language': 'de' })).text());
    for (const name of ['Web shop', 'API']) {
      for (const kind of [
        'status.svg',
        'uptime.svg?window=1d',
        'uptime.svg',
        'uptime.svg?window=90d',
        'latency.svg',
      ]) {
        const res = await get(t, `/badge/acme/${encodeURIComponent(name)}/${kind}`);
        expect(res.status).toBe(200);
        answers.push(await res.text());
      }
    }
    for (const answer of answers) {
      for (const value of Object.values(PRIVATE)) expect(answer).not.toContain(value);
      for (const part of ['127.0.0.1', 'Authorization', 'TARGET', 'PRIVATE'])
        expect(answer).not.toContain(part);
    }
    // The JSON has exactly the contract's fields: no id of any resource anywhere.
    const keys = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          keys.add(key);
          walk(inner);
        }
      }
    };
    walk(JSON.parse(json));
    expect([...keys].sort()).toEqual(
      [
        ...['slug', 'title', 'description', 'footer', 'status', 'updated_at', 'announcements', 'sections'],
        ...['incidents', 'body', 'severity', 'created_at', 'sensors', 'name', 'uptime', 'days', 'd1', 'd30'],
        ...['d90', 'date', 'worst', 'sensor', 'started_at', 'resolved_at'],
      ].sort(),
    );
    // Sensor ids appear nowhere in the page or the badges as ids.
    for (const answer of answers.slice(1)) {
      for (const id of [web.id, api.id, hidden.id]) {
        expect(answer).not.toMatch(new RegExp(`(sensors?[/=_-]|id=["']?)${id}\\b`));
      }
    }
  });

  it('renders complete, escaped HTML in the language the visitor asks for', async () => {
    const en = await get(t, '/status/acme', { 'accept-language': 'fr, en;q=0.5' });
    expect(en.status).toBe(200);
    expect(en.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(en.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await en.text();
    expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).toContain('Acme &lt;b&gt;status&lt;/b&gt; &amp; &quot;more&quot;');
    expect(html).toContain('Tonight &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.match(/<script[^>]*>/gi)).toEqual(['<script src="/status/refresh.js" defer>']);
    const script = await get(t, '/status/refresh.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('location.reload()');
    expect(html).toContain('All systems operational');
    const de = await (await get(t, '/status/acme', { 'accept-language': 'de-DE,de;q=0.9' })).text();
    expect(de).toMatch(/<html lang="de">/);
    expect(de).toContain('Alle Systeme funktionieren');
  });

  it('badges are well-formed SVG, embeddable from other sites', async () => {
    const status = await get(t, '/badge/acme/Web%20shop/status.svg');
    expect(status.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(status.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const svg = await status.text();
    expect(assertWellFormedXml(svg)).toBe('svg');
    expect(svg).toContain('>Web shop</text>');
    expect(svg).toContain('>up</text>');
    const uptime = await (await get(t, '/badge/acme/Web%20shop/uptime.svg?window=1d')).text();
    expect(assertWellFormedXml(uptime)).toBe('svg');
    expect(uptime).toContain('>100%</text>');
    expect(await (await get(t, '/badge/acme/Web%20shop/uptime.svg')).text()).toContain('>75%</text>');
    const latency = await (await get(t, '/badge/acme/Web%20shop/latency.svg')).text();
    expect(assertWellFormedXml(latency)).toBe('svg');
    expect(latency).toContain('>100 ms</text>');
    // The page itself keeps the same-origin policy.
    expect((await get(t, '/status/acme')).headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  it('answers 304 to a matching If-None-Match, with a strong ETag and a few seconds of caching', async () => {
    for (const url of ['/api/public/status-pages/acme', '/status/acme', '/badge/acme/API/status.svg']) {
      const first = await get(t, url);
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('public, max-age=5');
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await get(t, url, { 'if-none-match': `"other", ${etag}` });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      expect((await get(t, url, { 'if-none-match': '"other"' })).status).toBe(200);
    }
  });

  it('sends the page compressed once per body, each encoding with its own tag', async () => {
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const request = http.get(
          `${t.url}/status/acme`,
          { headers: { 'accept-encoding': encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        request.on('error', reject);
      });
    const plain = await raw('identity');
    const br = await raw('gzip;q=0.5, br');
    const gzip = await raw('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(plain.body.toString());
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(plain.body.toString());
    expect(new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(3);
    expect(br.headers.vary).toBe('accept-language, accept-encoding');
  });

  it('shows a sensor going down at the next request after the event, not 10 s later', async () => {
    const before = (await (await get(t, '/api/public/status-pages/acme')).json()) as PublicStatusPage;
    expect(before.status).toBe('operational');
    const badgeBefore = await (await get(t, '/badge/acme/Web%20shop/status.svg')).text();
    // The clock stands still: only the status event can make the cached view go.
    await feed(t, web.id, failure(PRIVATE.message), NOW);
    expect((await getSensor(t, admin, web.id)).status).toBe('down');
    const after = (await (await get(t, '/api/public/status-pages/acme')).json()) as PublicStatusPage;
    expect(after.status).toBe('outage');
    expect(after.sections[0]!.sensors[0]).toMatchObject({ name: 'Web shop', status: 'down' });
    expect(await (await get(t, '/status/acme')).text()).toContain('Some systems are down');
    const badgeAfter = await (await get(t, '/badge/acme/Web%20shop/status.svg')).text();
    expect(badgeBefore).toContain('>up</text>');
    expect(badgeAfter).toContain('>down</text>');
    // A sensor not on the page going up leaves the cached view as it is (same ETag).
    const etag = (await get(t, '/api/public/status-pages/acme')).headers.get('etag')!;
    await feed(t, hidden.id, success(), NOW);
    expect((await get(t, '/api/public/status-pages/acme', { 'if-none-match': etag })).status).toBe(304);
  });
});
