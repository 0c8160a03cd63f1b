import type { Role, SessionInfo, SessionUser, UiSettings } from '@monitor/contracts';

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

export class SessionUserDto implements SessionUser {
  id!: number;
  username!: string;
  role!: Role;
  totp_enabled!: boolean;
  recovery_codes_left!: number;
}

export class SessionInfoDto implements SessionInfo {
  /** No account exists yet: the dashboard shows first-run setup. */
  setup_needed!: boolean;
  /**
   * Whether first-run setup may run from the host this request named (an IP address, localhost,
   * the host of base_url or one of allowed_hosts); POST /api/setup answers 403 otherwise.
   */
  setup_host_allowed!: boolean;
  authenticated!: boolean;
  /** How the request was authenticated: `session`, `api_key`, or null. */
  via!: 'session' | 'api_key' | null;
  /** The signed-in account; null when signed out or when the API key was used. */
  user!: SessionUserDto | null;
  ui!: UiSettingsDto;
}
