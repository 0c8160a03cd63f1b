import axe from 'axe-core';
import type { Page } from 'playwright-core';

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/* The page-side scripts are strings: the e2e TypeScript project has no DOM types. */
const IS_INJECTED = "typeof window.axe !== 'undefined'";
const RUN = `window.axe.run(document, { resultTypes: ['violations'] }).then((result) =>
  result.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  })),
)`;

/**
 * Runs axe-core in the page (injected through the DevTools protocol, so the page's CSP does not apply)
 * and returns the violations of impact `serious` or `critical`.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>(IS_INJECTED))) await page.evaluate(axe.source);
  const violations = await page.evaluate<AxeViolation[]>(RUN);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
