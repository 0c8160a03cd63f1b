import type { Page } from 'playwright-core';

/** Console errors and uncaught exceptions of a page; a CSP violation shows up here too. */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

/** Checks `check` every `everyMs` until it holds; fails after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Buttons of the status grid's cards that stick out of their card (cards have a fixed height). */
export function clippedCardButtons(page: Page): Promise<string[]> {
  return page.evaluate<
    string[]
  >(`[...document.querySelectorAll('[data-testid^="sensor-row-"]')].flatMap((card) => {
    const box = card.getBoundingClientRect();
    return [...card.querySelectorAll('button')]
      .filter((button) => { const b = button.getBoundingClientRect(); return b.bottom > box.bottom + 0.5 || b.right > box.right + 0.5; })
      .map((button) => card.getAttribute('data-testid') + ': ' + button.textContent.trim());
  })`);
}

/**
 * Starts counting a page's requests; the function returned resolves once none has been in flight for
 * `quietMs`. A page that answers a failed request with another one has settled by then.
 */
export function trackRequests(page: Page): (quietMs?: number) => Promise<void> {
  let inFlight = 0;
  let lastChange = Date.now();
  const change = (by: number) => () => {
    inFlight += by;
    lastChange = Date.now();
  };
  page.on('request', change(1));
  page.on('requestfinished', change(-1));
  page.on('requestfailed', change(-1));
  return (quietMs = 1_000) => waitFor(() => inFlight === 0 && Date.now() - lastChange >= quietMs, 20_000);
}
