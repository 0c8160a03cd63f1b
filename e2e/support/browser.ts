import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type BrowserContext, type LaunchOptions, type Page } from 'playwright-core';

type ContextOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>;

export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Closes the browser and deletes its profile directory. */
  close(): Promise<void>;
}

/** Flags for a quiet, reproducible headless Chromium that makes no network calls of its own. */
const CHROMIUM_ARGS: LaunchOptions['args'] = [
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
 * Launches the system Chromium (Debian's /usr/bin/chromium, or $CHROMIUM_PATH) with a fresh profile.
 * Never downloads a browser. `options` may set e.g. `viewport` or `colorScheme`, and `args` adds flags.
 */
export async function openBrowser(
  options: Omit<ContextOptions, 'executablePath'> = {},
): Promise<BrowserSession> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'monitor-e2e-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      headless: true,
      ...options,
      // Extra flags (e.g. --host-resolver-rules) come after ours.
      args: [...CHROMIUM_ARGS!, ...(options.args ?? [])],
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());

  let closed = false;
  return {
    context,
    page,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await context.close();
      } finally {
        await rm(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      }
    },
  };
}
