import type { PublicDay, PublicSensor, PublicStatusPage, StatusPageLanguage } from '@monitor/contracts';
import { PAGE_STRINGS, type PageStrings } from './page-strings';
import { PAGE_STYLE } from './page-style';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Where the page's refresh script is served (same origin, as the CSP's script-src 'self' asks). */
export const REFRESH_SCRIPT_PATH = '/status/refresh.js';

/** Reloads the page every 60 s while it is visible; reading needs no script at all. */
export const REFRESH_SCRIPT =
  "'use strict';\nsetInterval(function () {\n  if (document.visibilityState === 'visible') location.reload();\n}, 60000);\n";

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A percentage in the language's notation, at most two decimals: "99.95 %" / "99,95 %". */
export function formatPercent(value: number, language: StatusPageLanguage): string {
  return `${percentFormat(language).format(value)} %`;
}

// Made once per language: a page of 200 sensors formats 18,000 figures, and making a formatter
// costs far more than using one.
const percentFormats = new Map<StatusPageLanguage, Intl.NumberFormat>();
function percentFormat(language: StatusPageLanguage): Intl.NumberFormat {
  let format = percentFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(language, { maximumFractionDigits: 2 });
    percentFormats.set(language, format);
  }
  return format;
}

/** An instant as visitors read it, the same in every time zone: "2026-11-25 10:07 UTC". */
const formatTime = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** Everything of the document before the body's content. */
function documentHead(language: StatusPageLanguage, title: string, refresh: boolean): string {
  return [
    '<!DOCTYPE html>',
    `<html lang="${language}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No browser request for a favicon the server does not have (it would be a 404 in the console).
    '<link rel="icon" href="data:,">',
    // Our own small script, not inline (the CSP forbids that) and not a meta refresh (axe: WCAG 2.2.1).
    refresh ? `<script src="${REFRESH_SCRIPT_PATH}" defer></script>` : '',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

const DOCUMENT_TAIL = '</body>\n</html>';

function document(language: StatusPageLanguage, title: string, body: string, refresh: boolean): string {
  return `${documentHead(language, title, refresh)}${body}${DOCUMENT_TAIL}`;
}

function dayTitle(day: PublicDay, s: PageStrings, language: StatusPageLanguage): string {
  if (day.uptime === null) {
    // No results that day, or a page that hides uptime: the day's colour in words.
    const word = { down: s.outage, degraded: s.degradedDay, up: s.up, none: s.noData }[day.worst ?? 'none'];
    return `${day.date}: ${word}`;
  }
  const worst = day.worst === 'down' ? `, ${s.outage}` : day.worst === 'degraded' ? `, ${s.degradedDay}` : '';
  return `${day.date}: ${formatPercent(day.uptime, language)} ${s.up}${worst}`;
}

function daySummary(days: PublicDay[], s: PageStrings): string {
  const count = (worst: PublicDay['worst']) => days.filter((d) => d.worst === worst).length;
  return s.summary(days.length, {
    up: count('up'),
    degraded: count('degraded'),
    down: count('down'),
    none: count(null),
  });
}

function sensorHtml(sensor: PublicSensor, historyDays: number, s: PageStrings, language: StatusPageLanguage) {
  const window = historyDays >= 90 ? 90 : 30;
  const uptime = window === 90 ? sensor.uptime.d90 : sensor.uptime.d30;
  const figure =
    uptime === null
      ? ''
      : `<span>${escapeHtml(formatPercent(uptime, language))} ${escapeHtml(s.uptime(window))}</span>`;
  const bars = sensor.days
    .map(
      // The shortest element that takes a box: 200 sensors × 90 days are 18,000 of them.
      (d) => `<i class="${d.worst ?? 'none'}" title="${escapeHtml(dayTitle(d, s, language))}"></i>`,
    )
    .join('');
  return [
    '<div class="sensor">',
    `<div class="row"><h3>${escapeHtml(sensor.name)}</h3>`,
    `<span class="state ${sensor.status}">${escapeHtml(s.sensor[sensor.status])}</span></div>`,
    `<div class="bars" aria-hidden="true">${bars}</div>`,
    `<p class="sr-only">${escapeHtml(daySummary(sensor.days, s))}</p>`,
    `<div class="scale muted"><span>${escapeHtml(s.historyOf(historyDays))}</span>${figure}</div>`,
    '</div>',
  ].join('');
}

/** The whole public page as one HTML5 document; every text is escaped. */
export function renderStatusPage(
  page: PublicStatusPage,
  historyDays: number,
  language: StatusPageLanguage,
): string {
  return [...statusPageParts(page, historyDays, language)].join('');
}

/**
 * The page's HTML in pieces, one per sensor in between, so a server can render a large page
 * between other work instead of in one long block. Joined, the pieces are `renderStatusPage`.
 */
export function* statusPageParts(
  page: PublicStatusPage,
  historyDays: number,
  language: StatusPageLanguage,
): Generator<string> {
  const s = PAGE_STRINGS[language];
  yield documentHead(language, page.title, true);
  const parts: string[] = ['<header>', `<h1>${escapeHtml(page.title)}</h1>`];
  if (page.description) parts.push(`<p class="text muted">${escapeHtml(page.description)}</p>`);
  parts.push('</header><main>');
  if (page.announcements.length > 0) {
    parts.push(`<section aria-label="${escapeHtml(s.announcements)}">`);
    for (const a of page.announcements) {
      parts.push(
        `<div class="card announcement ${a.severity}" role="note">`,
        `<p class="severity">${escapeHtml(s.severity[a.severity])}</p>`,
        `<h2>${escapeHtml(a.title)}</h2>`,
        `<p class="text">${escapeHtml(a.body)}</p>`,
        `<p class="muted"><time datetime="${escapeHtml(a.created_at)}">${escapeHtml(formatTime(a.created_at))}</time></p>`,
        '</div>',
      );
    }
    parts.push('</section>');
  }
  parts.push(`<p class="banner ${page.status}" role="status">${escapeHtml(s.page[page.status])}</p>`);
  yield parts.join('');
  parts.length = 0;
  for (const section of page.sections) {
    yield `<section class="card"><h2>${escapeHtml(section.title)}</h2>`;
    for (const sensor of section.sensors) yield sensorHtml(sensor, historyDays, s, language);
    yield '</section>';
  }
  parts.push('<section class="card">', `<h2>${escapeHtml(s.incidents)}</h2>`);
  if (page.incidents.length === 0) {
    parts.push(`<p class="muted">${escapeHtml(s.noIncidents(historyDays))}</p>`);
  } else {
    parts.push('<ul class="incidents">');
    for (const i of page.incidents) {
      const end =
        i.resolved_at === undefined
          ? `<strong>${escapeHtml(s.ongoing)}</strong>`
          : `${escapeHtml(s.resolved)} <time datetime="${escapeHtml(i.resolved_at)}">${escapeHtml(formatTime(i.resolved_at))}</time>`;
      parts.push(
        `<li><strong>${escapeHtml(i.sensor)}</strong>: ${escapeHtml(s.started)} `,
        `<time datetime="${escapeHtml(i.started_at)}">${escapeHtml(formatTime(i.started_at))}</time>, ${end}</li>`,
      );
    }
    parts.push('</ul>');
  }
  parts.push('</section></main><footer class="muted">');
  if (page.footer) parts.push(`<p class="text">${escapeHtml(page.footer)}</p>`);
  parts.push(
    `<p>${escapeHtml(s.updatedAt)} <time datetime="${escapeHtml(page.updated_at)}">${escapeHtml(formatTime(page.updated_at))}</time></p>`,
    '</footer>',
  );
  yield parts.join('');
  yield DOCUMENT_TAIL;
}

/** The answer for an unknown or unpublished page. */
export function renderNotFoundPage(language: StatusPageLanguage): string {
  const s = PAGE_STRINGS[language];
  return document(
    language,
    s.notFoundTitle,
    `<main><h1>${escapeHtml(s.notFoundTitle)}</h1><p>${escapeHtml(s.notFoundText)}</p></main>`,
    false,
  );
}
