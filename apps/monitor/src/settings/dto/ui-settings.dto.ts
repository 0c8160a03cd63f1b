import type { UiSettings } from '@monitor/contracts';

export class UiSettingsDto implements UiSettings {
  /** `light`, `dark` or `system`. */
  theme!: 'light' | 'dark' | 'system';
  /** `on` (default) or `off`: off means the dashboard does not subscribe to the event stream. */
  live!: 'on' | 'off';
  /** `on` (default) or `off`: country borders on the map. */
  borders!: 'on' | 'off';
  /** Dashboard language, e.g. `en`. */
  language!: string;
  /** Status page density: `cards` (default), `list` or `wall`. */
  density!: 'cards' | 'list' | 'wall';
  /** Status page order: `problems` (default, down and flaky first) or `saved` (dashboard order). */
  order!: 'problems' | 'saved';
  /** Highest guided-tour version finished. */
  tour_version!: number;
}
