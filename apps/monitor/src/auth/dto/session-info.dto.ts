import type { Role, SessionInfo, SessionUser } from '@monitor/contracts';
import { UiSettingsDto } from '../../settings/dto/ui-settings.dto';

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
