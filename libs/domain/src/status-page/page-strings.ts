import type {
  AnnouncementSeverity,
  PublicPageStatus,
  PublicSensorStatus,
  StatusPageLanguage,
} from '@monitor/contracts';

/** The public page's texts, in the dashboard's languages. */
export interface PageStrings {
  page: Record<PublicPageStatus, string>;
  sensor: Record<PublicSensorStatus, string>;
  severity: Record<AnnouncementSeverity, string>;
  announcements: string;
  incidents: string;
  noIncidents: (days: number) => string;
  ongoing: string;
  resolved: string;
  started: string;
  updatedAt: string;
  uptime: (days: number) => string;
  noData: string;
  up: string;
  outage: string;
  degradedDay: string;
  historyOf: (days: number) => string;
  summary: (days: number, counts: { up: number; degraded: number; down: number; none: number }) => string;
  notFoundTitle: string;
  notFoundText: string;
  poweredBy: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const PAGE_STRINGS: Record<StatusPageLanguage, PageStrings> = {
  en: {
    page: {
      operational: 'All systems operational',
      degraded: 'Some systems are degraded',
      outage: 'Some systems are down',
      maintenance: 'Maintenance in progress',
    },
    sensor: {
      up: 'Up',
      down: 'Down',
      degraded: 'Degraded',
      maintenance: 'Maintenance',
      paused: 'Paused',
      unknown: 'Unknown',
    },
    severity: { info: 'Information', warning: 'Warning', critical: 'Critical' },
    announcements: 'Announcements',
    incidents: 'Incidents',
    noIncidents: (days) => `No incidents in the last ${days} days.`,
    ongoing: 'ongoing',
    resolved: 'resolved',
    started: 'started',
    updatedAt: 'Updated at',
    uptime: (days) => `uptime over ${days} days`,
    noData: 'no data',
    up: 'up',
    outage: 'outage',
    degradedDay: 'failed checks',
    historyOf: (days) => `The last ${days} days`,
    summary: (days, c) =>
      [
        `${days} days`,
        plural(c.up, 'day without problems', 'days without problems'),
        plural(c.degraded, 'day with failed checks', 'days with failed checks'),
        plural(c.down, 'day with outages', 'days with outages'),
        plural(c.none, 'day without data', 'days without data'),
      ].join(', ') + '.',
    notFoundTitle: 'Status page not found',
    notFoundText: 'There is no published status page at this address.',
    poweredBy: 'Status page',
  },
  de: {
    page: {
      operational: 'Alle Systeme funktionieren',
      degraded: 'Einige Systeme sind beeinträchtigt',
      outage: 'Einige Systeme sind ausgefallen',
      maintenance: 'Wartungsarbeiten laufen',
    },
    sensor: {
      up: 'In Betrieb',
      down: 'Ausgefallen',
      degraded: 'Beeinträchtigt',
      maintenance: 'Wartung',
      paused: 'Pausiert',
      unknown: 'Unbekannt',
    },
    severity: { info: 'Information', warning: 'Warnung', critical: 'Kritisch' },
    announcements: 'Mitteilungen',
    incidents: 'Vorfälle',
    noIncidents: (days) => `Keine Vorfälle in den letzten ${days} Tagen.`,
    ongoing: 'andauernd',
    resolved: 'behoben',
    started: 'begonnen',
    updatedAt: 'Aktualisiert',
    uptime: (days) => `Verfügbarkeit über ${days} Tage`,
    noData: 'keine Daten',
    up: 'verfügbar',
    outage: 'Ausfall',
    degradedDay: 'fehlgeschlagene Prüfungen',
    historyOf: (days) => `Die letzten ${days} Tage`,
    summary: (days, c) =>
      [
        `${days} Tage`,
        plural(c.up, 'Tag ohne Probleme', 'Tage ohne Probleme'),
        plural(c.degraded, 'Tag mit fehlgeschlagenen Prüfungen', 'Tage mit fehlgeschlagenen Prüfungen'),
        plural(c.down, 'Tag mit Ausfällen', 'Tage mit Ausfällen'),
        plural(c.none, 'Tag ohne Daten', 'Tage ohne Daten'),
      ].join(', ') + '.',
    notFoundTitle: 'Statusseite nicht gefunden',
    notFoundText: 'Unter dieser Adresse gibt es keine veröffentlichte Statusseite.',
    poweredBy: 'Statusseite',
  },
};
