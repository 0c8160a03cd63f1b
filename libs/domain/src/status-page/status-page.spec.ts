import { DAY_MS, HOUR_MS } from '../history/history-range';
import { emptyBucket, type Bucket } from '../history/rollup-bucket';
import { latencyBadge, statusBadge, uptimeBadge, isBadgeWindow } from './badges';
import { dayEntries, uptimeFigures, type SensorRollups } from './days';
import { pageLanguage } from './language';
import { buildPublicView, type PageSensor, type PageDefinition } from './public-page';
import { pageStatus, publicSensorStatus } from './public-state';
import { escapeHtml, renderNotFoundPage, renderStatusPage } from './render-page';
import { assertWellFormedXml } from './testing/well-formed-xml';

const NOW = Date.UTC(2026, 10, 25, 10, 30);
const TODAY = Date.UTC(2026, 10, 25);
const bucket = (count: number, up: number, latencySum = up * 100): Bucket => ({
  count,
  up,
  latencySum,
  latencyMin: up > 0 ? 100 : null,
  latencyMax: up > 0 ? 100 : null,
});
const rollups = (over: Partial<SensorRollups> = {}): SensorRollups => ({
  daily: new Map(),
  today: emptyBucket(),
  lastDay: emptyBucket(),
  outages: [],
  ...over,
});
const live = { status: 'up' as const, enabled: true, inMaintenance: false };

describe('public sensor and page status', () => {
  it('maps live states, maintenance excusing everything but a pause', () => {
    expect(publicSensorStatus(live)).toBe('up');
    expect(publicSensorStatus({ ...live, status: 'down' })).toBe('down');
    expect(publicSensorStatus({ ...live, status: 'warn' })).toBe('degraded');
    expect(publicSensorStatus({ ...live, status: 'unknown' })).toBe('unknown');
    expect(publicSensorStatus({ ...live, status: 'down', inMaintenance: true })).toBe('maintenance');
    expect(publicSensorStatus({ ...live, enabled: false, inMaintenance: true })).toBe('paused');
    expect(publicSensorStatus({ ...live, status: 'paused' })).toBe('paused');
  });

  it('ranks outage over degraded over maintenance over operational', () => {
    expect(pageStatus(['up', 'maintenance', 'degraded', 'down'])).toBe('outage');
    expect(pageStatus(['up', 'maintenance', 'degraded'])).toBe('degraded');
    expect(pageStatus(['up', 'maintenance', 'paused'])).toBe('maintenance');
    expect(pageStatus(['up', 'paused', 'unknown'])).toBe('operational');
    expect(pageStatus([])).toBe('operational');
  });
});

describe('days', () => {
  it('has one entry per day ending today, null without data, today from the hourly rollups', () => {
    const days = dayEntries(
      rollups({
        daily: new Map([
          [TODAY - DAY_MS, bucket(4, 3)],
          [TODAY - 2 * DAY_MS, bucket(8, 8)],
        ]),
        today: bucket(3, 3),
      }),
      NOW,
      30,
    );
    expect(days).toHaveLength(30);
    expect(days[0]!.date).toBe('2026-10-27');
    expect(days[29]).toEqual({ date: '2026-11-25', uptime: 100, worst: 'up' });
    expect(days[28]).toEqual({ date: '2026-11-24', uptime: 75, worst: 'degraded' });
    expect(days[27]).toEqual({ date: '2026-11-23', uptime: 100, worst: 'up' });
    expect(days[26]).toEqual({ date: '2026-11-22', uptime: null, worst: null });
  });

  it('marks every day an outage overlapped as down, an open one up to today', () => {
    const days = dayEntries(
      rollups({
        daily: new Map([[TODAY - 3 * DAY_MS, bucket(10, 10)]]),
        outages: [
          { startedAt: TODAY - 3 * DAY_MS + HOUR_MS, resolvedAt: TODAY - 3 * DAY_MS + 2 * HOUR_MS },
          { startedAt: TODAY - DAY_MS + 5 * HOUR_MS, resolvedAt: null },
        ],
      }),
      NOW,
      30,
    );
    expect(days.slice(-4).map((d) => d.worst)).toEqual(['down', null, 'down', 'down']);
  });

  it('figures d1 from the last day, d30 and d90 from the daily buckets plus today', () => {
    const daily = new Map([
      [TODAY - DAY_MS, bucket(10, 5)],
      [TODAY - 50 * DAY_MS, bucket(10, 0)],
      [TODAY - 95 * DAY_MS, bucket(100, 0)],
    ]);
    const figures = uptimeFigures(rollups({ daily, today: bucket(10, 10), lastDay: bucket(4, 3) }), NOW);
    expect(figures).toEqual({ d1: 75, d30: 75, d90: 50 });
    expect(uptimeFigures(rollups(), NOW)).toEqual({ d1: null, d30: null, d90: null });
  });
});

describe('the public view', () => {
  const page: PageDefinition = {
    slug: 'acme',
    title: 'Acme <status>',
    description: 'We "watch" & tell',
    footer: 'Footer',
    show_uptime: true,
    history_days: 30,
    sections: [
      { title: 'Web', sensors: [1, 2, 99] },
      { title: 'Again', sensors: [1] },
    ],
    announcements: [
      {
        id: 7,
        title: 'Planned',
        body: 'Tonight',
        severity: 'warning',
        created_at: '2026-11-25T09:00:00.000Z',
      },
    ],
  };
  const sensors = new Map<number, PageSensor>([
    [1, { name: 'Web', state: live, rollups: rollups({ lastDay: bucket(2, 2, 250) }) }],
    [2, { name: 'API', state: { ...live, status: 'down' }, rollups: rollups() }],
  ]);
  const incidents = [
    { sensorId: 2, startedAt: TODAY - 40 * DAY_MS, resolvedAt: TODAY - 35 * DAY_MS },
    { sensorId: 2, startedAt: TODAY - 3 * DAY_MS, resolvedAt: TODAY - 2 * DAY_MS },
    { sensorId: 2, startedAt: TODAY + HOUR_MS, resolvedAt: null },
  ];
  const view = buildPublicView(page, sensors, incidents, NOW);

  it('skips deleted sensors, ranks the page, lists recent incidents newest first', () => {
    expect(view.page.status).toBe('outage');
    expect(view.page.sections.map((s) => s.sensors.map((x) => x.name))).toEqual([['Web', 'API'], ['Web']]);
    expect(view.page.incidents).toEqual([
      { sensor: 'API', started_at: new Date(TODAY + HOUR_MS).toISOString() },
      {
        sensor: 'API',
        started_at: new Date(TODAY - 3 * DAY_MS).toISOString(),
        resolved_at: new Date(TODAY - 2 * DAY_MS).toISOString(),
      },
    ]);
    expect(view.page.announcements).toEqual([
      { title: 'Planned', body: 'Tonight', severity: 'warning', created_at: '2026-11-25T09:00:00.000Z' },
    ]);
    expect(view.badges.get('Web')).toEqual({
      status: 'up',
      uptime: { d1: 100, d30: null, d90: null },
      latencyMs: 125,
      latencyShown: true,
    });
  });

  it('hides every uptime when the page does not show it: figures, days, bar titles and latency', () => {
    const withDays = new Map<number, PageSensor>([
      [
        1,
        {
          name: 'Web',
          state: live,
          rollups: rollups({
            daily: new Map([
              [TODAY - 2 * DAY_MS, bucket(10, 10, 200)],
              [TODAY - DAY_MS, bucket(10, 9, 200)],
            ]),
            today: bucket(4, 4, 100),
            lastDay: bucket(4, 4, 100),
          }),
        },
      ],
      [2, sensors.get(2)!],
    ]);
    const shown = buildPublicView(page, withDays, incidents, NOW);
    const hidden = buildPublicView({ ...page, show_uptime: false }, withDays, incidents, NOW);
    expect(hidden.page.sections[0]!.sensors[0]!.uptime).toEqual({ d1: null, d30: null, d90: null });
    const shownDays = shown.page.sections.flatMap((s) => s.sensors.flatMap((x) => x.days));
    const hiddenDays = hidden.page.sections.flatMap((s) => s.sensors.flatMap((x) => x.days));
    expect(shownDays.some((d) => d.uptime !== null)).toBe(true);
    expect(hiddenDays.map((d) => d.uptime)).toEqual(hiddenDays.map(() => null));
    // The colour of each day stays.
    expect(hiddenDays.map((d) => d.worst)).toEqual(shownDays.map((d) => d.worst));
    expect(hidden.badges.get('Web')).toMatchObject({ latencyMs: null, latencyShown: false });
    for (const language of ['en', 'de'] as const) {
      const html = renderStatusPage(hidden.page, 30, language);
      expect(html).not.toMatch(/\d %/);
      expect(html).toContain(language === 'en' ? ': up"' : ': verfügbar"');
      expect(renderStatusPage(shown.page, 30, language)).toMatch(/\d %/);
    }
  });

  it('renders a complete, escaped document in the chosen language', () => {
    const html = renderStatusPage(view.page, 30, 'de');
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="de">')).toBe(true);
    expect(html).toContain('<title>Acme &lt;status&gt;</title>');
    expect(html).toContain('We &quot;watch&quot; &amp; tell');
    expect(html).not.toContain('<status>');
    expect(html).toContain('Einige Systeme sind ausgefallen');
    // The one script is our own file (the CSP allows no inline script).
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/status/refresh.js" defer>']);
    expect(html).toContain('<script src="/status/refresh.js" defer></script>');
    expect(html).toContain('30 Tage');
    expect(html.indexOf('Planned')).toBeLessThan(html.indexOf('class="banner'));
    expect(renderStatusPage(view.page, 30, 'en')).toContain('Some systems are down');
    expect(renderNotFoundPage('en')).toContain('<html lang="en">');
    expect(escapeHtml(`<a href='x'>&"`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&quot;');
  });
});

describe('language choice', () => {
  it("takes the page's language, else the best match of Accept-Language, else English", () => {
    expect(pageLanguage('de', 'en')).toBe('de');
    expect(pageLanguage('', 'fr-CH, fr;q=0.9, de;q=0.8, en;q=0.7')).toBe('de');
    expect(pageLanguage('', 'de-AT')).toBe('de');
    expect(pageLanguage('', 'en;q=0.5, de;q=0.4')).toBe('en');
    expect(pageLanguage('', 'de;q=0, fr')).toBe('en');
    expect(pageLanguage('', undefined)).toBe('en');
    expect(pageLanguage('', ';;;,q=,')).toBe('en');
  });
});

describe('badges', () => {
  const figures = {
    status: 'down' as const,
    uptime: { d1: 99.95, d30: null, d90: 12.3456 },
    latencyMs: 123,
    latencyShown: true,
  };

  it('are well-formed SVG with the escaped name and the figures', () => {
    const status = statusBadge('a<b> & "c"', figures);
    expect(assertWellFormedXml(status)).toBe('svg');
    expect(status).toContain('a&lt;b&gt; &amp; &quot;c&quot;');
    expect(status).toContain('>down</text>');
    expect(status).toContain('#e05d44');
    expect(statusBadge('x', { ...figures, status: 'maintenance' })).toContain('>maintenance</text>');
    expect(assertWellFormedXml(uptimeBadge(figures, '1d'))).toBe('svg');
    expect(uptimeBadge(figures, '1d')).toContain('>99.95%</text>');
    expect(uptimeBadge(figures, '30d')).toContain('>no data</text>');
    expect(uptimeBadge(figures, '90d')).toContain('>12.35%</text>');
    expect(assertWellFormedXml(latencyBadge(figures))).toBe('svg');
    expect(latencyBadge(figures)).toContain('>123 ms</text>');
    expect(isBadgeWindow('7d')).toBe(false);
  });

  it('the XML check refuses what is not well-formed', () => {
    expect(() => assertWellFormedXml('<svg><g></svg>')).toThrow();
    expect(() => assertWellFormedXml('<svg a="1" a="2"/>')).toThrow();
    expect(() => assertWellFormedXml('<svg>&nbsp;</svg>')).toThrow();
    expect(() => assertWellFormedXml('<svg/><svg/>')).toThrow();
    expect(() => assertWellFormedXml('<svg a=1/>')).toThrow();
  });
});
