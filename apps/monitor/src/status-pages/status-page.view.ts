import type { StatusPage, StatusPageHistoryDays, StatusPageLanguage } from '@monitor/contracts';
import type { StoredStatusPage } from './status-pages.repository';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A stored page as the API answers it. */
export function statusPageView(page: StoredStatusPage): StatusPage {
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    description: page.description,
    sections: page.sections.map((s) => ({ title: s.title, sensors: [...s.sensors] })),
    published: page.published,
    show_uptime: page.show_uptime,
    history_days: page.history_days as StatusPageHistoryDays,
    footer: page.footer,
    language: page.language as StatusPageLanguage | '',
    announcements: page.announcements.map((a) => ({
      id: a.id,
      title: a.title,
      body: a.body,
      severity: a.severity,
      created_at: iso(a.created_at),
    })),
    managed_by: page.managed_by,
    created_at: iso(page.created_at),
    updated_at: iso(page.updated_at),
  };
}
