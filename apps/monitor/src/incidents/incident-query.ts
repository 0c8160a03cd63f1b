import type { HistoryRange } from '@monitor/contracts';
import { InvalidInputError, RANGE_MS } from '@monitor/domain';
import { INCIDENT_LIMIT, type IncidentStateFilter } from './dto/list-incidents.dto';

/** What the incident list reads, already validated and in stored units (epoch milliseconds). */
export interface IncidentFilter {
  state: IncidentStateFilter;
  /** `open=1`: combines with state like any other filter (state=resolved&open=1 matches nothing). */
  openOnly: boolean;
  sensorId?: number;
  /** started_at >= this. */
  startedFrom?: number;
  /** started_at <= this. */
  startedTo?: number;
  /** Literal substring of the cause, the sensor name or the note (ASCII case-insensitive). */
  text?: string;
  limit: number;
}

/** The query parameters after DTO validation. */
export interface IncidentQuery {
  state?: IncidentStateFilter;
  open?: '1';
  sensor?: number;
  range?: HistoryRange;
  since?: string;
  q?: string;
  limit?: number;
}

/**
 * Turns the query into a filter. `range` is the window [now - range, now] on started_at (`all`: only
 * the upper bound); without a range, `since` is a lower bound on started_at; with one, since is not
 * looked at at all. An empty q filters nothing.
 */
export function toIncidentFilter(query: IncidentQuery, now: number): IncidentFilter {
  const filter: IncidentFilter = {
    state: query.state ?? 'all',
    openOnly: query.open === '1',
    limit: query.limit ?? INCIDENT_LIMIT.default,
  };
  if (query.sensor !== undefined) filter.sensorId = query.sensor;
  if (query.range !== undefined) {
    filter.startedTo = now;
    if (query.range !== 'all') filter.startedFrom = now - RANGE_MS[query.range];
  } else if (query.since !== undefined) {
    const since = parseRfc3339(query.since);
    if (since === null)
      throw new InvalidInputError('since must be an RFC 3339 timestamp, for example 2026-01-31T08:00:00Z');
    filter.startedFrom = since;
  }
  if (query.q) filter.text = query.q;
  return filter;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+\- ])(\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds of an RFC 3339 date-time (offset required), or null. Calendar dates that do not
 * exist (February 30th) are refused rather than rolled over. A space where the offset sign belongs is
 * read as `+`: an unencoded `+` in a query string arrives as a space.
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return null;
  const date = Date.UTC(year, month - 1, day);
  if (day < 1 || new Date(date).getUTCDate() !== day) return null;
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return date + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis;
}
