import { Injectable } from '@nestjs/common';
import type { AnnouncementInput, AnnouncementSeverity, StatusPageSection } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import { insertRows, storedBoolean } from '../core/database/stored-values';

/** What the API, the configuration file and a restore set on a page (sections apart). */
export interface StatusPageColumns {
  slug: string;
  title: string;
  description: string;
  published: boolean;
  show_uptime: boolean;
  history_days: number;
  footer: string;
  language: string;
}

export interface StoredAnnouncement {
  id: number;
  title: string;
  body: string;
  severity: AnnouncementSeverity;
  created_at: number;
}

/** A stored page with its sections in order and its announcements newest first; times in epoch ms. */
export interface StoredStatusPage extends StatusPageColumns {
  id: number;
  managed_by: string | null;
  created_at: number;
  updated_at: number;
  sections: StatusPageSection[];
  announcements: StoredAnnouncement[];
}

interface PageRow extends Omit<StatusPageColumns, 'published' | 'show_uptime'> {
  id: number;
  published: unknown;
  show_uptime: unknown;
  managed_by: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const PAGE_COLUMNS =
  'id, slug, title, description, published, show_uptime, history_days, footer, language, managed_by, created_at, updated_at';

/** The only code that reads or writes the status pages' four tables (backup rows apart). */
@Injectable()
export class StatusPagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Every page, sorted by slug (one snapshot: a page is never seen half written). */
  list(): Promise<StoredStatusPage[]> {
    return this.sql.transaction((tx) => loadPages(tx, '', []), { readOnly: true });
  }

  async byId(id: number, tx?: SqlExecutor): Promise<StoredStatusPage | null> {
    const load = (executor: SqlExecutor) => loadPages(executor, 'WHERE id = ?', [id]);
    const pages = tx ? await load(tx) : await this.sql.transaction(load, { readOnly: true });
    return pages[0] ?? null;
  }

  async bySlug(slug: string, tx?: SqlExecutor): Promise<StoredStatusPage | null> {
    const load = (executor: SqlExecutor) => loadPages(executor, 'WHERE slug = ?', [slug]);
    const pages = tx ? await load(tx) : await this.sql.transaction(load, { readOnly: true });
    return pages[0] ?? null;
  }

  /** Every page's id and slug. */
  async slugs(tx: SqlExecutor = this.sql): Promise<{ id: number; slug: string }[]> {
    const rows = await tx.all<{ id: number; slug: string }>(
      'SELECT id, slug FROM status_pages ORDER BY slug',
    );
    return rows.map((r) => ({ id: Number(r.id), slug: r.slug }));
  }

  /** Inserts a page (the unique slug index refuses a duplicate); its id. */
  async insert(
    tx: SqlExecutor,
    page: StatusPageColumns,
    now: number,
    managedBy: string | null = null,
  ): Promise<number> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO status_pages (slug, title, description, published, show_uptime, history_days, footer,
         language, managed_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [...columnValues(page), managedBy, now, now],
    );
    return Number(row!.id);
  }

  async update(tx: SqlExecutor, id: number, page: StatusPageColumns, now: number): Promise<void> {
    await tx.run(
      `UPDATE status_pages SET slug = ?, title = ?, description = ?, published = ?, show_uptime = ?,
         history_days = ?, footer = ?, language = ?, updated_at = ? WHERE id = ?`,
      [...columnValues(page), now, id],
    );
  }

  async setManagedBy(tx: SqlExecutor, id: number, managedBy: string | null): Promise<void> {
    await tx.run('UPDATE status_pages SET managed_by = ? WHERE id = ?', [managedBy, id]);
  }

  /** Pages the file managed before and no longer declares go back to the API. */
  async releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    const notIn = keep.length > 0 ? ` AND id NOT IN (${keep.map(() => '?').join(', ')})` : '';
    await tx.run(`UPDATE status_pages SET managed_by = NULL WHERE managed_by = ?${notIn}`, [
      managedBy,
      ...keep,
    ]);
  }

  /** An announcement changed: the page's updated_at moves with it. */
  async touch(tx: SqlExecutor, id: number, now: number): Promise<void> {
    await tx.run('UPDATE status_pages SET updated_at = ? WHERE id = ?', [now, id]);
  }

  /** Replaces every section of a page (their sensors go with them by the cascade). */
  async replaceSections(tx: SqlExecutor, pageId: number, sections: StatusPageSection[]): Promise<void> {
    await writeSections(tx, pageId, sections, true);
  }

  async delete(tx: SqlExecutor, id: number): Promise<void> {
    await tx.run('DELETE FROM status_pages WHERE id = ?', [id]);
  }

  async insertAnnouncement(
    tx: SqlExecutor,
    pageId: number,
    input: AnnouncementInput,
    now: number,
  ): Promise<StoredAnnouncement> {
    const row = await tx.get<{ id: number }>(
      `INSERT INTO status_page_announcements (page_id, title, body, severity, created_at)
       VALUES (?, ?, ?, ?, ?) RETURNING id`,
      [pageId, input.title, input.body, input.severity, now],
    );
    return {
      id: Number(row!.id),
      title: input.title,
      body: input.body,
      severity: input.severity,
      created_at: now,
    };
  }

  /** Deletes the page's announcement; false when that page has no such announcement. */
  async deleteAnnouncement(tx: SqlExecutor, pageId: number, announcementId: number): Promise<boolean> {
    const { changes } = await tx.run('DELETE FROM status_page_announcements WHERE id = ? AND page_id = ?', [
      announcementId,
      pageId,
    ]);
    return changes > 0;
  }
}

const columnValues = (page: StatusPageColumns): unknown[] => [
  page.slug,
  page.title,
  page.description,
  page.published,
  page.show_uptime,
  page.history_days,
  page.footer,
  page.language,
];

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
