import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import type {
  AnnouncementInput,
  StatusPage,
  StatusPageAnnouncement,
  StatusPageFields,
  StatusPageInput,
  StatusPageSection,
} from '@monitor/contracts';
import { ConflictError, InvalidInputError, NotFoundError } from '@monitor/domain';
import { Clock } from '../core/clock/clock';
import { isForeignKeyViolationError, isUniqueViolationError } from '../core/database/sql-client';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { EventBus } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { SensorsRepository } from '../sensors/sensors.repository';
import { checkSections } from './status-page-rules';
import { statusPageView } from './status-page.view';
import type { StatusPageChange } from './status-page-rows.sql';
import { StatusPagesRepository, type StoredStatusPage } from './status-pages.repository';

type Action = 'created' | 'updated' | 'deleted';

/** Status pages: the admin API's reads and writes, and the published page the public side shows. */
@Injectable()
export class StatusPagesService implements OnModuleInit, OnModuleDestroy {
  private subscription?: Subscription;
  private sensorGone?: NodeJS.Immediate;

  constructor(
    private readonly unit: UnitOfWork,
    private readonly repository: StatusPagesRepository,
    private readonly sensors: SensorsRepository,
    private readonly events: EventBus,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * A deleted sensor leaves every page by the foreign key's cascade, so which pages held it cannot
   * be read afterwards: every page is announced as updated (pages are few; a cache recomputes), once
   * per burst (a restore deletes many). Only the instance that deleted it announces: the others
   * hear the bridged statusPage events.
   */
  onModuleInit(): void {
    this.subscription = this.events.on('sensor').subscribe((event) => {
      if (event.action !== 'deleted' || this.events.isRemote || this.sensorGone) return;
      this.sensorGone = setImmediate(() => {
        this.sensorGone = undefined;
        this.repository.slugs().then(
          (pages) => pages.forEach((p) => this.events.emit('statusPage', { ...p, action: 'updated' })),
          (error: unknown) =>
            this.logger.warn(
              { error: (error as Error).message },
              'could not announce the status pages of a deleted sensor',
            ),
        );
      });
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
    if (this.sensorGone) clearImmediate(this.sensorGone);
  }

  /** Every page, sorted by slug. */
  async list(): Promise<StatusPage[]> {
    return (await this.repository.list()).map(statusPageView);
  }

  /** One page; 404 when there is none. */
  async get(id: number): Promise<StatusPage> {
    const page = await this.repository.byId(id);
    if (!page) throw notFound(id);
    return statusPageView(page);
  }

  /** The published page of that slug; null when unknown or unpublished. */
  async publishedBySlug(slug: string): Promise<StatusPage | null> {
    const page = await this.repository.bySlug(slug);
    return page?.published ? statusPageView(page) : null;
  }

  /** Creates a page; the unique slug index decides between racing creates (one 201, the others 409). */
  async create(input: StatusPageInput & { slug: string; title: string }): Promise<StatusPage> {
    const sections = checkSections(input.sections ?? []);
    const page = await this.write(input.slug, async (tx) => {
      await this.requireSensors(tx, sections);
      const id = await this.repository.insert(tx, columnsOf(input, DEFAULTS), this.clock.now());
      await this.repository.replaceSections(tx, id, sections);
      return (await this.repository.byId(id, tx))!;
    });
    return this.changed(page, 'created');
  }

  /** Absent fields keep their value; `sections` replaces every section. */
  async update(id: number, input: StatusPageInput): Promise<StatusPage> {
    const sections = input.sections === undefined ? null : checkSections(input.sections);
    const { page, oldSlug } = await this.write(input.slug ?? null, async (tx) => {
      const stored = await this.mustFindChangeable(tx, id, 'changed');
      if (sections) await this.requireSensors(tx, sections);
      await this.repository.update(tx, id, columnsOf(input, stored), this.clock.now());
      if (sections) await this.repository.replaceSections(tx, id, sections);
      return { page: (await this.repository.byId(id, tx))!, oldSlug: stored.slug };
    });
    // A rename is announced under the old slug too: whatever was kept under it is out of date.
    if (oldSlug !== page.slug) this.events.emit('statusPage', { id, slug: oldSlug, action: 'updated' });
    return this.changed(page, 'updated');
  }

  async remove(id: number): Promise<void> {
    const page = await this.unit.atomically(async (tx) => {
      const stored = await this.mustFindChangeable(tx, id, 'deleted');
      await this.repository.delete(tx, id);
      return stored;
    });
    this.changed(page, 'deleted');
  }

  /** Adds an announcement to a page (file-declared pages too: announcements are not declared). */
  async announce(id: number, input: AnnouncementInput): Promise<StatusPageAnnouncement> {
    const { page, announcement } = await this.unit.atomically(async (tx) => {
      const stored = await this.repository.byId(id, tx);
      if (!stored) throw notFound(id);
      const now = this.clock.now();
      const added = await this.repository.insertAnnouncement(tx, id, input, now);
      await this.repository.touch(tx, id, now);
      return { page: stored, announcement: added };
    });
    this.changed(page, 'updated');
    return statusPageView({ ...page, announcements: [announcement] }).announcements[0];
  }

  /** Deletes one of the page's announcements; 404 when the page has no such announcement. */
  async withdraw(id: number, announcementId: number): Promise<void> {
    const page = await this.unit.atomically(async (tx) => {
      const stored = await this.repository.byId(id, tx);
      if (!stored) throw notFound(id);
      if (!(await this.repository.deleteAnnouncement(tx, id, announcementId)))
        throw new NotFoundError(`status page ${id} has no announcement ${announcementId}`);
      await this.repository.touch(tx, id, this.clock.now());
      return stored;
    });
    this.changed(page, 'updated');
  }

  /**
   * Applies the pages the configuration file declares inside the caller's transaction (sections
   * already resolved to sensor ids); pages it no longer declares go back to the API. What changed,
   * for `announceChanges` once the transaction committed.
   */
  async applyDeclared(
    tx: SqlExecutor,
    pages: (StatusPageFields & { sections: StatusPageSection[] })[],
    managedBy: string,
  ): Promise<StatusPageChange[]> {
    const now = this.clock.now();
    const changes: StatusPageChange[] = [];
    for (const { sections, ...columns } of pages) {
      const { id, created } = await this.repository.saveDeclared(tx, columns, sections, managedBy, now);
      changes.push({ id, slug: columns.slug, action: created ? 'created' : 'updated' });
    }
    await this.repository.releaseDeclared(
      tx,
      managedBy,
      changes.map((c) => c.id),
    );
    return changes;
  }

  /** Tells the public side (and the other instances) about pages changed outside the API. */
  announceChanges(changes: StatusPageChange[]): void {
    for (const change of changes) this.events.emit('statusPage', change);
  }

  /** Checks and writes in one atomic transaction; a slug taken meanwhile is a 409 naming it. */
  private async write<T>(slug: string | null, change: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    try {
      return await this.unit.atomically(change);
    } catch (error) {
      if (isUniqueViolationError(error) && slug !== null)
        throw new ConflictError(`a status page with slug "${slug}" already exists`);
      // A sensor deleted by a writer outside `atomically` between the check and the insert.
      if (isForeignKeyViolationError(error))
        throw new InvalidInputError('a sensor of the page was deleted meanwhile: try again');
      throw error;
    }
  }

  /** Every sensor id of the sections must name a sensor: 400 naming the unknown ones. */
  private async requireSensors(tx: SqlExecutor, sections: StatusPageSection[]): Promise<void> {
    const wanted = [...new Set(sections.flatMap((s) => s.sensors))];
    const existing = await this.sensors.existingIds(tx, wanted);
    const unknown = wanted.filter((id) => !existing.has(id)).sort((a, b) => a - b);
    if (unknown.length > 0) throw new InvalidInputError(`unknown sensor ids: ${unknown.join(', ')}`);
  }

  private async mustFindChangeable(
    tx: SqlExecutor,
    id: number,
    verb: 'changed' | 'deleted',
  ): Promise<StoredStatusPage> {
    const page = await this.repository.byId(id, tx);
    if (!page) throw notFound(id);
    if (page.managed_by)
      throw new ConflictError(
        `status page "${page.slug}" is declared in the configuration file and cannot be ${verb} through the API`,
      );
    return page;
  }

  private changed(page: StoredStatusPage, action: Action): StatusPage {
    this.events.emit('statusPage', { id: page.id, slug: page.slug, action });
    return statusPageView(page);
  }
}

const notFound = (id: number): NotFoundError => new NotFoundError(`no status page with id ${id}`);

const DEFAULTS: Omit<StatusPageFields, 'slug' | 'title'> = {
  description: '',
  published: false,
  show_uptime: true,
  history_days: 90,
  footer: '',
  language: '',
};

/** The columns a request sets, the others from `base` (the defaults on create, the stored page on update). */
function columnsOf(input: StatusPageInput, base: Partial<StatusPageFields>): StatusPageFields {
  return {
    slug: input.slug ?? base.slug!,
    title: input.title ?? base.title!,
    description: input.description ?? base.description!,
    published: input.published ?? base.published!,
    show_uptime: input.show_uptime ?? base.show_uptime!,
    history_days: input.history_days ?? base.history_days!,
    footer: input.footer ?? base.footer!,
    language: input.language ?? base.language!,
  };
}
