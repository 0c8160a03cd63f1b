import { join } from 'node:path';

/**
 * Where browser tests write their screenshots: an ignored folder, so a test run leaves the tree clean.
 * Only `npm run screenshots` (scripts/update-screenshots.mjs) copies them into docs/screenshots/.
 */
export const SCREENSHOTS_DIR = join(__dirname, '..', '..', 'test-output', 'screenshots');
