import { Inject, Injectable } from '@nestjs/common';
import type { Incident, SearchHit, SearchResponse, SensorStatus } from '@monitor/contracts';
import { hasRole, type Principal } from '../core/http/principal';
import { Clock } from '../core/clock/clock';
import { isoOrNull } from '../core/clock/iso';
import { containsPattern } from '../core/database/like-pattern';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { IncidentsService } from '../incidents/incidents.service';
import { SensorRuntimeService } from '../scheduler/sensor-runtime.service';
import { SEARCH_TEXT } from './dto/search.dto';
import { ChannelsRepository, type ChannelSearchRow as ChannelRow } from '../channels/channels.repository';
import { HistoryRepository, type ResultSearchRow as ResultRow } from '../history/history.repository';
import { SensorsRepository, type SensorSearchRow as SensorRow } from '../sensors/sensors.repository';
import { SitesRepository } from '../sites/sites.repository';
import { UsersRepository } from '../users/users.repository';

type SiteRow = Awaited<ReturnType<SitesRepository['search']>>[number];
type UserRow = Awaited<ReturnType<UsersRepository['search']>>[number];

/** Rows per kind; one more is fetched to know whether the kind was cut. */
export const SEARCH_ROWS_PER_KIND = 20;

/**
 * Global search: a literal substring (% and _ are ordinary characters) over a fixed list of fields
 * per kind. Case-insensitive by SQLite's LIKE, which folds ASCII letters only (`Ä` does not find `ä`).
 * Accounts are searched for administrators (and the API key) only.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly sensors: SensorsRepository,
    private readonly sites: SitesRepository,
    private readonly channels: ChannelsRepository,
    private readonly history: HistoryRepository,
    private readonly users: UsersRepository,
    private readonly incidents: IncidentsService,
    private readonly runtime: SensorRuntimeService,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  async search(q: string | undefined, principal: Principal): Promise<SearchResponse> {
    // Characters, not UTF-16 units: an emoji is one character.
    if (q === undefined || Array.from(q).length < SEARCH_TEXT.min) return { hits: [], truncated: false };
    const pattern = containsPattern(q);
    const fetch = SEARCH_ROWS_PER_KIND + 1;
    const now = this.clock.now();
    const groups: SearchHit[][] = [
      (await this.sensors.search(pattern, fetch)).map((row) => this.sensorHit(row)),
      (await this.sites.search(pattern, fetch)).map(siteHit),
      (await this.channels.search(pattern, fetch)).map(channelHit),
      (await this.incidents.search(q, fetch)).map(incidentHit),
      (
        await this.history.searchMessages(pattern, now - this.config.retention.raw_seconds * 1000, now, fetch)
      ).map(resultHit),
      hasRole(principal, 'admin') ? (await this.users.search(pattern, fetch)).map(userHit) : [],
    ];
    return {
      hits: groups.flatMap((group) => group.slice(0, SEARCH_ROWS_PER_KIND)),
      truncated: groups.some((group) => group.length > SEARCH_ROWS_PER_KIND),
    };
  }

  /** Status and last check as the sensor list shows them: the live runtime first, then the stored row. */
  private sensorHit(row: SensorRow): SearchHit {
    const live = this.runtime.get(row.id);
    const status: SensorStatus =
      live?.state.status ?? (row.enabled ? (row.status as SensorStatus) : 'paused');
    return {
      kind: 'sensor',
      ref: row.id,
      title: row.name,
      sub: `${row.type} · ${row.target}`,
      state: status,
      at: isoOrNull(live?.lastCheckedAt ?? row.last_checked_at),
    };
  }
}

const siteHit = (row: SiteRow): SearchHit => ({
  kind: 'site',
  ref: row.name,
  title: row.name,
  sub: row.kind,
  state: '',
  at: null,
});

const channelHit = (row: ChannelRow): SearchHit => ({
  kind: 'channel',
  ref: row.id,
  title: row.name,
  sub: row.type,
  state: row.enabled ? 'enabled' : 'disabled',
  at: isoOrNull(row.last_error_at),
});

const incidentHit = (incident: Incident): SearchHit => ({
  kind: 'incident',
  ref: incident.id,
  title: incident.sensor_name,
  sub: incident.cause,
  state: incident.resolved_at === undefined ? 'open' : 'resolved',
  at: incident.started_at,
});

const resultHit = (row: ResultRow): SearchHit => ({
  kind: 'result',
  ref: row.sensor_id,
  title: row.sensor_name,
  sub: row.message,
  state: row.success ? 'up' : 'down',
  at: new Date(row.ts).toISOString(),
});

const userHit = (row: UserRow): SearchHit => ({
  kind: 'user',
  ref: row.username,
  title: row.username,
  sub: row.role,
  state: row.disabled ? 'disabled' : 'active',
  at: isoOrNull(row.last_login_at),
});
