import { DENSITIES, SENSOR_ORDERS, type UiSettings } from '@monitor/contracts';
import type { User } from '../users/users.repository';

export const UI_DEFAULTS: UiSettings = {
  theme: 'system',
  live: 'on',
  borders: 'on',
  language: 'en',
  density: 'cards',
  order: 'problems',
  tour_version: 0,
};

/** An account's stored preferences over the defaults; unknown or invalid stored keys are dropped. */
export function uiSettingsOf(user: User | null): UiSettings {
  if (!user) return { ...UI_DEFAULTS };
  const stored = user.ui ?? {};
  const pick = <K extends 'theme' | 'live' | 'borders' | 'density' | 'order'>(
    key: K,
    allowed: readonly string[],
  ): UiSettings[K] => (allowed.includes(stored[key]) ? stored[key] : UI_DEFAULTS[key]) as UiSettings[K];
  return {
    theme: pick('theme', ['light', 'dark', 'system']),
    live: pick('live', ['on', 'off']),
    borders: pick('borders', ['on', 'off']),
    language: typeof stored.language === 'string' ? stored.language : UI_DEFAULTS.language,
    density: pick('density', DENSITIES),
    order: pick('order', SENSOR_ORDERS),
    tour_version: user.tourVersion,
  };
}
