import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { startServer } from '../apps/monitor/test/support/server-process';
import { seriousAxeViolations } from './support/axe';
import { openBrowser, type BrowserSession } from './support/browser';
import { ADMIN } from './support/session';
import { clippedCardButtons, collectProblems } from './support/page';
import { SCREENSHOTS_DIR } from './support/screenshots';

jest.setTimeout(180_000);

const CATALOGUES = join(__dirname, '..', 'frontend', 'src', 'i18n');
const SCREENSHOT = join(SCREENSHOTS_DIR, 'status-de.png');

/** A language's catalogue as `area.path.key` → text. */
function catalogue(language: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (value: unknown, prefix: string) => {
    if (typeof value === 'string') entries.set(prefix, value);
    else for (const [key, inner] of Object.entries(value as object)) walk(inner, `${prefix}.${key}`);
  };
  for (const file of readdirSync(join(CATALOGUES, language))) {
    if (file.endsWith('.json')) {
      walk(
        JSON.parse(readFileSync(join(CATALOGUES, language, file), 'utf8')),
        file.slice(0, -'.json'.length),
      );
    }
  }
  return entries;
}

describe('Dashboard in German (built server, real Chromium)', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: BrowserSession;
  let problems: string[];
  const english = catalogue('en');
  const german = catalogue('de');
  /** English sentences that German replaces: seeing one on a German page means a missed text. */
  const englishOnly = [...english]
    .filter(
      ([key, text]) =>
        german.get(key) !== text && !text.includes('{') && /\s/.test(text) && text.length >= 12,
    )
    .map(([, text]) => text);
  const url = (path: string) => `${server.url}${path}`;

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser({
      viewport: { width: 1280, height: 900 },
      locale: 'de-DE',
      timezoneId: 'UTC',
    });
    problems = collectProblems(browser.page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  /** Whatever the page shows that still reads as English or as a catalogue key. */
  async function untranslated(page: Page): Promise<string[]> {
    const text = await page.evaluate<string>('document.body.innerText');
    const found = englishOnly.filter((sentence) => text.includes(sentence));
    for (const key of english.keys()) if (text.includes(key)) found.push(`key ${key}`);
    const aria = await page.evaluate<string[]>(
      `[...document.querySelectorAll('[aria-label],[title],[placeholder]')].flatMap((e) => ['aria-label', 'title', 'placeholder'].map((a) => e.getAttribute(a)).filter(Boolean))`,
    );
    for (const label of aria) {
      if (englishOnly.includes(label) || english.has(label)) found.push(`attribute "${label}"`);
    }
    return found;
  }

  it('sets up in the browser’s language, which the first administrator then keeps', async () => {
    const { page } = browser;
    await page.goto(url('/setup'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Monitor einrichten');
    await expect(page.evaluate<string>('document.documentElement.lang')).resolves.toBe('de');
    await expect(page.title()).resolves.toBe('Monitor einrichten · Monitor');
    expect(await untranslated(page)).toEqual([]);

    await page.getByLabel('Benutzername').fill(ADMIN.username);
    await page.getByLabel('Passwort', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Passwort wiederholen').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Konto anlegen und anmelden' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('navigation', { name: 'Hauptnavigation' }).waitFor();
    const settings = await browser.context.request.get(url('/api/settings'));
    expect(((await settings.json()) as { ui: { language: string } }).ui.language).toBe('de');
  });

  it('shows every main screen in German once the account chose it, with sample data on them', async () => {
    const { page, context } = browser;
    const api = context.request;
    expect((await api.put(url('/api/settings'), { data: { ui: { language: 'de' } } })).status()).toBe(200);
    expect((await api.post(url('/api/examples'))).status()).toBeLessThan(300);
    expect((await api.post(url('/api/onboarding/tour'), { data: { version: 1 } })).status()).toBeLessThan(
      300,
    );
    const sensors = (await (await api.get(url('/api/sensors'))).json()) as { id: number }[];
    const id = sensors[0].id;

    const pages = [
      '/',
      '/incidents',
      '/sites',
      '/channels',
      '/status-pages',
      '/account',
      '/settings/accounts',
      '/settings/administration',
      '/settings',
      '/settings/about',
      '/sensors/new',
      `/sensors/${id}`,
      `/sensors/${id}/edit`,
      '/no-such-page',
    ];
    const missed: Record<string, string[]> = {};
    for (const path of pages) {
      await page.goto(url(path));
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Let the page's data arrive (lists, charts, figures) before reading it.
      await page.waitForLoadState('networkidle');
      await expect(page.evaluate<string>('document.documentElement.lang')).resolves.toBe('de');
      const found = await untranslated(page);
      if (found.length > 0) missed[path] = found;
      if (path === '/') {
        await mkdir(join(SCREENSHOT, '..'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
        expect(await seriousAxeViolations(page)).toEqual([]);
        expect(await clippedCardButtons(page)).toEqual([]);
      }
    }
    expect(missed).toEqual({});
    const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
      'Status',
      'Störungen',
      'Standorte',
      'Kanäle',
      'Statusseiten',
    ]);
    const sections = page.getByRole('navigation', { name: 'Bereiche der Einstellungen' });
    await page.goto(url('/settings'));
    await sections.getByRole('link', { name: 'Info' }).waitFor();
    await expect(sections.getByRole('link').allTextContents()).resolves.toEqual([
      'Einstellungen',
      'Konten',
      'Verwaltung',
      'Info',
    ]);
    expect(problems).toEqual([]);
  });
});
