import { makeBadge } from 'badge-maker';
import type { PublicSensorStatus } from '@monitor/contracts';
import type { BadgeFigures } from './public-page';

/** The windows an uptime badge may show. */
export const BADGE_WINDOWS = ['1d', '30d', '90d'] as const;
export type BadgeWindow = (typeof BADGE_WINDOWS)[number];

export const isBadgeWindow = (value: string): value is BadgeWindow =>
  (BADGE_WINDOWS as readonly string[]).includes(value);

const GREY = '#9f9f9f';
const STATUS_COLOUR: Partial<Record<PublicSensorStatus, string>> = { up: '#4c1', down: '#e05d44' };

/** badge-maker escapes label and message itself; the style is the shields' flat one. */
const badge = (label: string, message: string, color: string): string =>
  makeBadge({ label, message, color, style: 'flat' });

export function statusBadge(name: string, figures: BadgeFigures): string {
  return badge(name, figures.status, STATUS_COLOUR[figures.status] ?? GREY);
}

/** Green from 99.9 %, yellow-green from 99 %, yellow from 95 %, red below; grey without data. */
function uptimeColour(percent: number): string {
  if (percent >= 99.9) return '#4c1';
  if (percent >= 99) return '#97ca00';
  if (percent >= 95) return '#dfb317';
  return '#e05d44';
}

export function uptimeBadge(figures: BadgeFigures, window: BadgeWindow): string {
  const value = { '1d': figures.uptime.d1, '30d': figures.uptime.d30, '90d': figures.uptime.d90 }[window];
  const label = `uptime ${window}`;
  if (value === null) return badge(label, 'no data', GREY);
  return badge(label, `${Math.round(value * 100) / 100}%`, uptimeColour(value));
}

export function latencyBadge(figures: BadgeFigures): string {
  if (figures.latencyMs === null) return badge('latency 24h', 'no data', GREY);
  return badge('latency 24h', `${figures.latencyMs} ms`, '#007ec6');
}
