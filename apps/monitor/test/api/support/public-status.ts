import type { StatusPage, StatusPageSection } from '@monitor/contracts';
import { call, Headers } from './http';
import type { TestApp } from './test-app';

/* Shared by the public status page tests (public-status*.spec.ts). */

/** Creates a page and its announcement through the status pages' API. */
export async function storePage(
  t: TestApp,
  admin: Headers,
  page: { slug: string; published: boolean; language?: string; show_uptime?: boolean },
  sections: StatusPageSection[],
): Promise<number> {
  const created = await call<StatusPage>(
    t,
    'POST',
    '/api/status-pages',
    {
      slug: page.slug,
      title: `Acme <b>status</b> & "more"`,
      description: 'What we run.\nAll of it.',
      published: page.published,
      show_uptime: page.show_uptime ?? true,
      history_days: 30,
      footer: 'Footer text',
      language: page.language ?? '',
      sections,
    },
    admin,
  );
  expect(created.status).toBe(201);
  const announced = await call(
    t,
    'POST',
    `/api/status-pages/${created.body.id}/announcements`,
    { title: 'Planned work', body: 'Tonight <script>alert(1)</script>', severity: 'warning' },
    admin,
  );
  expect(announced.status).toBe(201);
  return created.body.id;
}

export const get = (t: TestApp, url: string, headers: Record<string, string> = {}) =>
  t.request(url, { headers });
