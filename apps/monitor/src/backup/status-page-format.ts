import {
  ANNOUNCEMENT_SEVERITIES,
  STATUS_PAGE_HISTORY_DAYS,
  STATUS_PAGE_LANGUAGES,
  STATUS_PAGE_LIMITS as LIMITS,
  STATUS_PAGE_SLUG_PATTERN,
  type AnnouncementSeverity,
  type BackupRef,
} from '@monitor/contracts';
import type { StatusPageRecord } from '../status-pages/status-page-rows.sql';
import { parseIsoTime, refKey, refLabel } from './backup-format';
import { RowReader } from './backup-row-reader';

/** A status page as read from a document: checked, its sensors still references by name. */
export interface StatusPageRow extends Omit<StatusPageRecord, 'sections'> {
  sections: { title: string; sensors: BackupRef[] }[];
}

const LANGUAGES = ['', ...STATUS_PAGE_LANGUAGES] as const;

/** The same rules as the API's: a restore never stores a page the API would refuse. */
export function readStatusPage(index: number, row: unknown): StatusPageRow {
  const r = new RowReader('status_pages', index, row);
  const slug = r.string('slug');
  if (!STATUS_PAGE_SLUG_PATTERN.test(slug))
    throw r.fail("slug must be 1 to 64 lowercase letters, digits and '-'");
  r.named(slug);
  const historyDays = r.int('history_days', 30, 90, 90);
  if (!(STATUS_PAGE_HISTORY_DAYS as readonly number[]).includes(historyDays))
    throw r.fail('history_days must be 30, 60 or 90');
  const page: StatusPageRow = {
    slug,
    title: r.string('title', { nonEmpty: true, max: LIMITS.title }).trim(),
    description: r.string('description', { fallback: '', max: LIMITS.text }),
    published: r.bool('published', false),
    show_uptime: r.bool('show_uptime', true),
    history_days: historyDays,
    footer: r.string('footer', { fallback: '', max: LIMITS.text }),
    language: readLanguage(r),
    sections: readSections(r, r.array('sections', [])),
    announcements: r.array('announcements', []).map((value, i) => readAnnouncement(r, i, value)),
  };
  r.done();
  return page;
}

function readLanguage(r: RowReader): string {
  const value = r.raw('language') ?? '';
  if (!(LANGUAGES as readonly unknown[]).includes(value))
    throw r.fail(`language must be '', ${STATUS_PAGE_LANGUAGES.join(' or ')}`);
  return value as string;
}

function readSections(r: RowReader, sections: unknown[]): StatusPageRow['sections'] {
  if (sections.length > LIMITS.sections)
    throw r.fail(`sections must have at most ${LIMITS.sections} entries`);
  return sections.map((value, i) => {
    const section = value as Record<string, unknown>;
    const field = `sections[${i}]`;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw r.fail(`${field} must be {title, sensors}`);
    const unknown = Object.keys(section).find((k) => k !== 'title' && k !== 'sensors');
    if (unknown !== undefined) throw r.fail(`${field}: unknown field "${unknown}"`);
    const title = section.title ?? '';
    if (typeof title !== 'string' || title.length > LIMITS.sectionTitle)
      throw r.fail(`${field}.title must be a string of at most ${LIMITS.sectionTitle} characters`);
    const refs = section.sensors ?? [];
    if (!Array.isArray(refs) || refs.length > LIMITS.sensorsPerSection)
      throw r.fail(`${field}.sensors must be an array of at most ${LIMITS.sensorsPerSection} sensors`);
    const seen = new Set<string>();
    const sensors = refs.map((ref) => {
      const checked = r.ref(`${field}.sensors`, ref);
      if (seen.has(refKey(checked))) throw r.fail(`${field}: sensor ${refLabel(checked)} appears twice`);
      seen.add(refKey(checked));
      return checked;
    });
    return { title: title.trim(), sensors };
  });
}

function readAnnouncement(r: RowReader, i: number, value: unknown): StatusPageRow['announcements'][number] {
  const field = `announcements[${i}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw r.fail(`${field} must be {title, body, severity, created_at}`);
  const a = value as Record<string, unknown>;
  const unknown = Object.keys(a).find((k) => !['title', 'body', 'severity', 'created_at'].includes(k));
  if (unknown !== undefined) throw r.fail(`${field}: unknown field "${unknown}"`);
  const title = typeof a.title === 'string' ? a.title.trim() : '';
  if (title === '' || title.length > LIMITS.announcementTitle)
    throw r.fail(`${field}.title must be 1 to ${LIMITS.announcementTitle} characters`);
  const body = a.body ?? '';
  if (typeof body !== 'string' || body.length > LIMITS.announcementBody)
    throw r.fail(`${field}.body must be a string of at most ${LIMITS.announcementBody} characters`);
  if (!(ANNOUNCEMENT_SEVERITIES as readonly unknown[]).includes(a.severity))
    throw r.fail(`${field}.severity must be one of ${ANNOUNCEMENT_SEVERITIES.join(', ')}`);
  const createdAt = typeof a.created_at === 'string' ? parseIsoTime(a.created_at) : NaN;
  if (Number.isNaN(createdAt)) throw r.fail(`${field}.created_at must be an ISO 8601 time`);
  return { title, body, severity: a.severity as AnnouncementSeverity, created_at: createdAt };
}
