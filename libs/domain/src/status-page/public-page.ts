import type { PublicIncident, PublicSensorStatus, PublicStatusPage, StatusPage } from '@monitor/contracts';
import {
  averageLatencyMs,
  dayEntries,
  firstDayOf,
  uptimeFigures,
  type OutageSpan,
  type SensorRollups,
  type UptimeFigures,
} from './days';
import { pageStatus, publicSensorStatus, type LiveSensorState } from './public-state';

/** The incidents a page lists at most. */
export const PUBLIC_INCIDENT_LIMIT = 50;

/** What of a stored page the public view uses (never its id or who manages it). */
export type PageDefinition = Pick<
  StatusPage,
  'slug' | 'title' | 'description' | 'footer' | 'show_uptime' | 'history_days' | 'sections' | 'announcements'
>;

/** A sensor on the page: its display name, live state and stored history, nothing else. */
export interface PageSensor {
  name: string;
  state: LiveSensorState;
  rollups: SensorRollups;
}

export interface PageIncident extends OutageSpan {
  sensorId: number;
}

/** What a badge shows of one sensor. */
export interface BadgeFigures {
  status: PublicSensorStatus;
  uptime: UptimeFigures;
  latencyMs: number | null;
  /** False on a page with `show_uptime: false`: no latency badge at all. */
  latencyShown: boolean;
}

export interface PublicView {
  page: PublicStatusPage;
  /** Keyed by the sensor's name, for the badges. */
  badges: ReadonlyMap<string, BadgeFigures>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const NO_UPTIME: UptimeFigures = { d1: null, d30: null, d90: null };

/** The sensor ids a page shows, each once. */
export const sensorIdsOf = (page: Pick<StatusPage, 'sections'>): number[] => [
  ...new Set(page.sections.flatMap((s) => s.sensors)),
];

/**
 * The public answer for a page: display names and states only. A sensor missing from `sensors`
 * (deleted meanwhile) is left out.
 */
export function buildPublicView(
  page: PageDefinition,
  sensors: ReadonlyMap<number, PageSensor>,
  incidents: readonly PageIncident[],
  now: number,
): PublicView {
  const badges = new Map<string, BadgeFigures>();
  const statuses: PublicSensorStatus[] = [];
  const sections = page.sections.map((section) => ({
    title: section.title,
    sensors: section.sensors.flatMap((id) => {
      const sensor = sensors.get(id);
      if (!sensor) return [];
      const own = incidents.filter((i) => i.sensorId === id);
      const rollups = { ...sensor.rollups, outages: own };
      const status = publicSensorStatus(sensor.state);
      const shown = page.show_uptime;
      const uptime = shown ? uptimeFigures(rollups, now) : NO_UPTIME;
      // Without uptime a day still shows how it went (its colour), never its percentage.
      const days = dayEntries(rollups, now, page.history_days).map((d) =>
        shown ? d : { ...d, uptime: null },
      );
      statuses.push(status);
      if (!badges.has(sensor.name)) {
        const latencyMs = shown ? averageLatencyMs(rollups) : null;
        badges.set(sensor.name, { status, uptime, latencyMs, latencyShown: shown });
      }
      return [{ name: sensor.name, status, uptime, days }];
    }),
  }));
  return {
    page: {
      slug: page.slug,
      title: page.title,
      description: page.description,
      footer: page.footer,
      status: pageStatus(statuses),
      updated_at: iso(now),
      announcements: page.announcements.map((a) => ({
        title: a.title,
        body: a.body,
        severity: a.severity,
        created_at: a.created_at,
      })),
      sections,
      incidents: publicIncidents(page, sensors, incidents, now),
    },
    badges,
  };
}

/** Open incidents and those resolved within the page's history, newest first, at most 50. */
function publicIncidents(
  page: PageDefinition,
  sensors: ReadonlyMap<number, PageSensor>,
  incidents: readonly PageIncident[],
  now: number,
): PublicIncident[] {
  const since = firstDayOf(now, page.history_days);
  return incidents
    .filter((i) => sensors.has(i.sensorId) && (i.resolvedAt === null || i.resolvedAt >= since))
    .sort((a, b) => b.startedAt - a.startedAt)
    .slice(0, PUBLIC_INCIDENT_LIMIT)
    .map((i) => ({
      sensor: sensors.get(i.sensorId)!.name,
      started_at: iso(i.startedAt),
      ...(i.resolvedAt === null ? {} : { resolved_at: iso(i.resolvedAt) }),
    }));
}
