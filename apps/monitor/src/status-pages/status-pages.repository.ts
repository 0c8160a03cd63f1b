import { Injectable } from '@nestjs/common';
import type { AnnouncementInput, StatusPageFields, StatusPageSection } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient, type SqlExecutor } from '../core/database/sql-client';
import { releaseManagedRows } from '../core/database/where-in';
import {
  loadPages,
  settingValues,
  writeSections,
  type StoredAnnouncement,
  type StoredStatusPage,
} from './status-page-rows.sql';

export type { StoredAnnouncement, StoredStatusPage };

/** The status pages' four tables for the API, the public side and the configuration file. */
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
    page: StatusPageFields,
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

  async update(tx: SqlExecutor, id: number, page: StatusPageFields, now: number): Promise<void> {
    await tx.run(
      `UPDATE status_pages SET slug = ?, title = ?, description = ?, published = ?, show_uptime = ?,
         history_days = ?, footer = ?, language = ?, updated_at = ? WHERE id = ?`,
      [...columnValues(page), now, id],
    );
  }

  /**
   * Creates or updates a page the configuration file declares (adopting an API page of that slug),
   * marked as managed by it, with the file's sections; its announcements stay. Its id and whether it is new.
   */
  async saveDeclared(
    tx: SqlExecutor,
    page: StatusPageFields,
    sections: StatusPageSection[],
    managedBy: string,
    now: number,
  ): Promise<{ id: number; created: boolean }> {
    const existing = await tx.get<{ id: number }>('SELECT id FROM status_pages WHERE slug = ?', [page.slug]);
    let id: number;
    if (existing) {
      id = Number(existing.id);
      await this.update(tx, id, page, now);
      await tx.run('UPDATE status_pages SET managed_by = ? WHERE id = ?', [managedBy, id]);
    } else id = await this.insert(tx, page, now, managedBy);
    await writeSections(tx, id, sections, existing !== undefined);
    return { id, created: !existing };
  }

  /** Pages the file managed before and no longer declares go back to the API. */
  releaseDeclared(tx: SqlExecutor, managedBy: string, keep: number[]): Promise<void> {
    return releaseManagedRows(tx, 'status_pages', managedBy, keep);
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

const columnValues = (page: StatusPageFields): unknown[] => [page.slug, ...settingValues(page)];
