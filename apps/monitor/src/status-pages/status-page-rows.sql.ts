import type { AnnouncementSeverity, StatusPageFields, StatusPageSection } from '@monitor/contracts';
import type { SqlExecutor } from '../core/database/sql-client';
import { insertRows, storedBoolean } from '../core/database/stored-values';

/*
 * The status pages' rows in one SQL text for both backends: the reads and section writes the
 * repository uses, and the backup's export and the restore's import (Nest-free: the restore
 * worker thread loads them on its own connection).
 */

export interface StoredAnnouncement {
  id: number;
  title: string;
  body: string;
  severity: AnnouncementSeverity;
  created_at: number;
}

/** A stored page with its sections in order and its announcements newest first; times in epoch ms. */
export interface StoredStatusPage extends StatusPageFields {
  id: number;
  managed_by: string | null;
  created_at: number;
  updated_at: number;
  sections: StatusPageSection[];
  announcements: StoredAnnouncement[];
}

interface PageRow extends Omit<StatusPageFields, 'published' | 'show_uptime'> {
  id: number;
  published: unknown;
  show_uptime: unknown;
  managed_by: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const PAGE_COLUMNS =
  'id, slug, title, description, published, show_uptime, history_days, footer, language, managed_by, created_at, updated_at';

/** Writes a page's sections in order, each with its sensors in order; `replace` deletes the old ones first. */
export async function writeSections(
  tx: SqlExecutor,
  pageId: number,
  sections: StatusPageSection[],
  replace: boolean,
): Promise<void> {
  if (replace) await tx.run('DELETE FROM status_page_sections WHERE page_id = ?', [pageId]);
  const links: (readonly unknown[])[] = [];
  for (const [position, section] of sections.entries()) {
    const row = await tx.get<{ id: number }>(
      'INSERT INTO status_page_sections (page_id, position, title) VALUES (?, ?, ?) RETURNING id',
      [pageId, position, section.title],
    );
    const sectionId = Number(row!.id);
    section.sensors.forEach((sensorId, index) => links.push([sectionId, sensorId, index]));
  }
  await insertRows(tx, 'status_page_sensors', ['section_id', 'sensor_id', 'position'], links);
}

/**
 * The pages `where` selects with their sections, sensors and announcements: four statements
 * whatever the number of pages (no query per page).
 */
export async function loadPages(
  tx: SqlExecutor,
  where: string,
  params: unknown[],
): Promise<StoredStatusPage[]> {
  const rows = await tx.all<PageRow>(
    `SELECT ${PAGE_COLUMNS} FROM status_pages ${where} ORDER BY slug`,
    params,
  );
  if (rows.length === 0) return [];
  const pageFilter = `page_id IN (SELECT id FROM status_pages ${where})`;
  const [sections, links, announcements] = [
    await tx.all<{ id: number; page_id: number; title: string }>(
      `SELECT id, page_id, title FROM status_page_sections WHERE ${pageFilter} ORDER BY page_id, position`,
      params,
    ),
    await tx.all<{ section_id: number; sensor_id: number }>(
      `SELECT section_id, sensor_id FROM status_page_sensors WHERE section_id IN
         (SELECT id FROM status_page_sections WHERE ${pageFilter}) ORDER BY section_id, position`,
      params,
    ),
    await tx.all<StoredAnnouncement & { page_id: number; created_at: number | string }>(
      `SELECT id, page_id, title, body, severity, created_at FROM status_page_announcements
       WHERE ${pageFilter} ORDER BY created_at DESC, id DESC`,
      params,
    ),
  ];
  const sensorsOf = new Map<number, number[]>();
  for (const link of links) {
    const id = Number(link.section_id);
    const list = sensorsOf.get(id) ?? [];
    list.push(Number(link.sensor_id));
    sensorsOf.set(id, list);
  }
  const sectionsOf = new Map<number, StatusPageSection[]>();
  for (const section of sections) {
    const pageId = Number(section.page_id);
    const list = sectionsOf.get(pageId) ?? [];
    list.push({ title: section.title, sensors: sensorsOf.get(Number(section.id)) ?? [] });
    sectionsOf.set(pageId, list);
  }
  const announcementsOf = new Map<number, StoredAnnouncement[]>();
  for (const a of announcements) {
    const pageId = Number(a.page_id);
    const list = announcementsOf.get(pageId) ?? [];
    list.push({
      id: Number(a.id),
      title: a.title,
      body: a.body,
      severity: a.severity,
      created_at: Number(a.created_at),
    });
    announcementsOf.set(pageId, list);
  }
  return rows.map((row) => {
    const id = Number(row.id);
    return {
      id,
      slug: row.slug,
      title: row.title,
      description: row.description,
      published: storedBoolean(row.published),
      show_uptime: storedBoolean(row.show_uptime),
      history_days: Number(row.history_days),
      footer: row.footer,
      language: row.language,
      managed_by: row.managed_by,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
      sections: sectionsOf.get(id) ?? [],
      announcements: announcementsOf.get(id) ?? [],
    };
  });
}

/** A page's columns after its slug, in the order the statements here and the repository's name them. */
export const settingValues = (page: StatusPageFields): unknown[] => [
  page.title,
  page.description,
  page.published,
  page.show_uptime,
  page.history_days,
  page.footer,
  page.language,
];

/** A page as a restore writes it: sensors already resolved to stored ids. */
export interface StatusPageRecord extends StatusPageFields {
  sections: StatusPageSection[];
  announcements: { title: string; body: string; severity: AnnouncementSeverity; created_at: number }[];
}

/** What a restore did to a page, for the events afterwards. */
export interface StatusPageChange {
  id: number;
  slug: string;
  action: 'created' | 'updated' | 'deleted';
}

/** Every page with its sections and announcements, by slug. */
export function exportStatusPages(tx: SqlExecutor): Promise<StoredStatusPage[]> {
  return loadPages(tx, '', []);
}

/**
 * Makes the pages those of `pages`, matched by slug (unique): others are deleted, matches get the
 * document's fields, sections and announcements, the rest are inserted. Pages the configuration
 * file declares are left as they are (the file wins).
 */
export async function importStatusPages(
  tx: SqlExecutor,
  pages: StatusPageRecord[],
  now: number,
): Promise<StatusPageChange[]> {
  const stored = await tx.all<{ id: number; slug: string; managed_by: string | null }>(
    'SELECT id, slug, managed_by FROM status_pages',
  );
  const changes: StatusPageChange[] = [];
  const wanted = new Set(pages.map((p) => p.slug));
  for (const row of stored)
    if (!wanted.has(row.slug) && !row.managed_by) {
      await tx.run('DELETE FROM status_pages WHERE id = ?', [row.id]);
      changes.push({ id: Number(row.id), slug: row.slug, action: 'deleted' });
    }
  const bySlug = new Map(stored.map((s) => [s.slug, s]));
  for (const page of pages) {
    const existing = bySlug.get(page.slug);
    if (existing?.managed_by) continue;
    const values = settingValues(page);
    let id: number;
    if (existing) {
      id = Number(existing.id);
      await tx.run(
        `UPDATE status_pages SET title = ?, description = ?, published = ?, show_uptime = ?, history_days = ?,
           footer = ?, language = ?, updated_at = ? WHERE id = ?`,
        [...values, now, id],
      );
      await tx.run('DELETE FROM status_page_announcements WHERE page_id = ?', [id]);
    } else {
      const row = await tx.get<{ id: number }>(
        `INSERT INTO status_pages (slug, title, description, published, show_uptime, history_days, footer,
           language, managed_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?) RETURNING id`,
        [page.slug, ...values, now, now],
      );
      id = Number(row!.id);
    }
    await writeSections(tx, id, page.sections, existing !== undefined);
    await insertRows(
      tx,
      'status_page_announcements',
      ['page_id', 'title', 'body', 'severity', 'created_at'],
      page.announcements.map((a) => [id, a.title, a.body, a.severity, a.created_at]),
    );
    changes.push({ id, slug: page.slug, action: existing ? 'updated' : 'created' });
  }
  return changes;
}
