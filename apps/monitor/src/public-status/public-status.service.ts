import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { STATUS_PAGE_SLUG_PATTERN, type StatusPageLanguage } from '@monitor/contracts';
import {
  buildPublicView,
  firstDayOf,
  InvalidInputError,
  isBadgeWindow,
  latencyBadge,
  NotFoundError,
  pageLanguage,
  renderNotFoundPage,
  statusPageParts,
  sensorIdsOf,
  statusBadge,
  uptimeBadge,
  type PageSensor,
  type PublicView,
} from '@monitor/domain';
import { merge, type Subscription } from 'rxjs';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import { HistoryService } from '../history/history.service';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { MaintenanceService } from '../maintenance/maintenance.service';
import { SensorsService } from '../sensors/sensors.service';
import { StatusPagesService } from '../status-pages/status-pages.service';
import { bodyOf, type Body } from './http-caching';
import { ViewCache } from './view-cache';

/** How long a computed page is reused when nothing relevant happens. */
export const PUBLIC_VIEW_MAX_AGE_MS = 10_000;
/**
 * How long a page's rollups are reused: they change when the maintenance pass summarises an hour
 * (every five minutes at most), not with a sensor's state, which every recomputation reads anew.
 */
const ROLLUPS_MAX_AGE_MS = 60_000;
/** Sensors per rollup query and per rendered piece of HTML before other work gets a turn. */
const SENSORS_PER_TURN = 25;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The page's HTML, rendered a few sensors at a time with other work in between. */
async function renderInTurns(view: PublicView, historyDays: number, language: StatusPageLanguage) {
  const parts: string[] = [];
  for (const part of statusPageParts(view.page, historyDays, language)) {
    if (parts.push(part) % SENSORS_PER_TURN === 0) await nextTurn();
  }
  return parts.join('');
}

export type BadgeKind = 'status' | 'uptime' | 'latency';
type PageRollups = Awaited<ReturnType<HistoryService['pageRollups']>>;

/** A page's view and the bodies made of it, each made once. */
class CachedPage {
  readonly sensorIds: ReadonlySet<number>;
  private json?: Promise<Body>;
  private readonly html = new Map<StatusPageLanguage, Promise<Body>>();
  private readonly badges = new Map<string, Body>();

  constructor(
    readonly view: PublicView,
    readonly historyDays: number,
    readonly language: StatusPageLanguage | '',
    sensorIds: readonly number[],
  ) {
    this.sensorIds = new Set(sensorIds);
  }

  jsonBody(): Promise<Body> {
    return (this.json ??= bodyOf(JSON.stringify(this.view.page)).precompressed());
  }

  /** Made once per language; concurrent first visitors share the rendering. */
  htmlBody(language: StatusPageLanguage): Promise<Body> {
    let body = this.html.get(language);
    if (!body) {
      body = renderInTurns(this.view, this.historyDays, language).then((html) =>
        bodyOf(html).precompressed(),
      );
      this.html.set(language, body);
    }
    return body;
  }

  /** Null for a sensor not on the page, and for a latency badge of a page that hides uptime. */
  badgeBody(sensor: string, kind: BadgeKind, window: '1d' | '30d' | '90d'): Body | null {
    const figures = this.view.badges.get(sensor);
    if (!figures || (kind === 'latency' && !figures.latencyShown)) return null;
    const key = `${kind}\u0000${window}\u0000${sensor}`;
    let body = this.badges.get(key);
    if (!body) {
      const svg =
        kind === 'status'
          ? statusBadge(sensor, figures)
          : kind === 'uptime'
            ? uptimeBadge(figures, window)
            : latencyBadge(figures);
      body = bodyOf(svg);
      this.badges.set(key, body);
    }
    return body;
  }
}

/**
 * The public side of status pages: the JSON, the HTML page and the badges of published pages,
 * computed at most every 10 s per page and at once after a change that concerns it, so a crowd of
 * visitors costs one computation.
 */
@Injectable()
export class PublicStatusService implements OnModuleInit, OnModuleDestroy {
  private readonly cache: ViewCache<CachedPage>;
  private readonly rollups = new Map<string, { at: number; key: string; value: PageRollups }>();
  private subscription?: Subscription;

  constructor(
    private readonly pages: StatusPagesService,
    private readonly sensors: SensorsService,
    private readonly history: HistoryService,
    private readonly incidents: IncidentsRepository,
    private readonly maintenance: MaintenanceService,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {
    this.cache = new ViewCache(
      (slug) => this.compute(slug),
      (page) => page.sensorIds,
      () => this.clock.now(),
      PUBLIC_VIEW_MAX_AGE_MS,
    );
  }

  onModuleInit(): void {
    this.subscription = merge(this.events.on('status'), this.events.on('incident')).subscribe((event) =>
      this.cache.invalidateSensor(event.sensor_id),
    );
    this.subscription.add(
      merge(this.events.on('sensor'), this.events.on('statusPage'), this.events.on('maintenance')).subscribe(
        () => this.cache.invalidateAll(),
      ),
    );
    this.subscription.add(this.events.on('statusPage').subscribe((event) => this.rollups.delete(event.slug)));
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  async json(slug: string): Promise<Body> {
    return (await this.page(slug)).jsonBody();
  }

  /** The page in its language or the visitor's; the 404 page (in the visitor's) when there is none. */
  async html(
    slug: string,
    acceptLanguage: string | undefined,
  ): Promise<{ found: boolean; body: Body; negotiated: boolean }> {
    const page = await this.cache.get(slug);
    if (!page)
      return {
        found: false,
        body: bodyOf(renderNotFoundPage(pageLanguage('', acceptLanguage))),
        negotiated: true,
      };
    const language = pageLanguage(page.language, acceptLanguage);
    return { found: true, body: await page.htmlBody(language), negotiated: page.language === '' };
  }

  async badge(slug: string, sensor: string, kind: BadgeKind, window: string | undefined): Promise<Body> {
    const chosen = window ?? '30d';
    if (kind === 'uptime' && !isBadgeWindow(chosen)) {
      throw new InvalidInputError('window must be one of 1d, 30d, 90d');
    }
    const page = await this.page(slug);
    const body = page.badgeBody(sensor, kind, isBadgeWindow(chosen) ? chosen : '30d');
    if (!body) throw new NotFoundError(`no sensor of that name on the status page ${slug}`);
    return body;
  }

  private async page(slug: string): Promise<CachedPage> {
    const page = await this.cache.get(slug);
    if (!page) throw new NotFoundError(`no published status page ${slug}`);
    return page;
  }

  /** The sensors' rollups, reused for a minute, read a few sensors at a time. */
  private async rollupsOf(slug: string, ids: number[], now: number): Promise<PageRollups> {
    const key = ids.join(',');
    const kept = this.rollups.get(slug);
    if (kept && kept.key === key && now >= kept.at && now - kept.at < ROLLUPS_MAX_AGE_MS) return kept.value;
    const value: PageRollups = new Map();
    for (let i = 0; i < ids.length; i += SENSORS_PER_TURN) {
      if (i > 0) await nextTurn();
      for (const [id, r] of await this.history.pageRollups(ids.slice(i, i + SENSORS_PER_TURN), now))
        value.set(id, r);
    }
    this.rollups.set(slug, { at: now, key, value });
    return value;
  }

  private async compute(slug: string): Promise<CachedPage | null> {
    // No page can have another slug: the database is not asked.
    if (!STATUS_PAGE_SLUG_PATTERN.test(slug)) return null;
    const page = await this.pages.publishedBySlug(slug);
    if (!page) return null;
    const now = this.clock.now();
    const ids = sensorIdsOf(page);
    const live = this.sensors.publicStates(ids);
    const rollups = await this.rollupsOf(
      slug,
      live.map((s) => s.id),
      now,
    );
    const spans = await this.incidents.spansOf(
      live.map((s) => s.id),
      firstDayOf(now, page.history_days),
    );
    const sensors = new Map<number, PageSensor>(
      live.map((s) => [
        s.id,
        {
          name: s.name,
          state: {
            status: s.status,
            enabled: s.enabled,
            inMaintenance: this.maintenance.inMaintenance(s.id, now),
          },
          rollups: { ...rollups.get(s.id)!, outages: [] },
        },
      ]),
    );
    const view = buildPublicView(page, sensors, spans, now);
    return new CachedPage(view, page.history_days, page.language, ids);
  }
}
