export type Role = 'admin' | 'operator' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'operator', 'viewer'];

export type Theme = 'light' | 'dark' | 'system';
export type OnOff = 'on' | 'off';
/** How the status page draws the sensors. */
export type Density = 'cards' | 'list' | 'wall';
export const DENSITIES: readonly Density[] = ['cards', 'list', 'wall'];
/** `problems`: down and flaky sensors first; `saved`: the dashboard order. */
export type SensorOrder = 'problems' | 'saved';
export const SENSOR_ORDERS: readonly SensorOrder[] = ['problems', 'saved'];

/** Per-account dashboard preferences. */
export interface UiSettings {
  theme: Theme;
  /** `off`: the browser does not subscribe to the event stream. */
  live: OnOff;
  borders: OnOff;
  /** BCP 47 language tag of the dashboard, e.g. `en`. */
  language: string;
  /** Status page density: `cards` (default), `list` or `wall`. */
  density: Density;
  /** Status page order: `problems` (default) or `saved`. */
  order: SensorOrder;
  /** Highest guided-tour version this account has finished (0: none). */
  tour_version: number;
}

/** The signed-in account as the dashboard sees it. */
export interface SessionUser {
  id: number;
  username: string;
  role: Role;
  totp_enabled: boolean;
  recovery_codes_left: number;
}

/** GET /api/session */
export interface SessionInfo {
  /** No account exists yet: the dashboard shows first-run setup. */
  setup_needed: boolean;
  /**
   * Whether first-run setup may run from the host this request named (an IP address, localhost,
   * the host of base_url or one of allowed_hosts); POST /api/setup answers 403 otherwise.
   */
  setup_host_allowed: boolean;
  authenticated: boolean;
  /** How the request was authenticated. */
  via: 'session' | 'api_key' | null;
  /** null when not signed in, or when the API key was used (it has no account). */
  user: SessionUser | null;
  ui: UiSettings;
}

/** POST /api/setup */
export interface SetupRequest {
  username: string;
  password: string;
  mode: 'simple' | 'advanced';
}

/** POST /api/login */
export interface LoginRequest {
  username: string;
  password: string;
}

/** POST /api/login answer: signed in, or a second factor is needed. */
export type LoginResponse = { ok: true } | { totp_required: true; challenge: string };

/** POST /api/login/totp: `code` is a 6-digit TOTP code or a recovery code. */
export interface TotpLoginRequest {
  challenge: string;
  code: string;
}

export interface OkResponse {
  ok: true;
}

/** PUT /api/password */
export interface ChangePasswordRequest {
  current_password: string;
  new_password: string;
}

/** POST /api/me/totp/start */
export interface TotpStartResponse {
  /** Base32 secret, for typing into an authenticator by hand. */
  secret: string;
  /** otpauth:// URI, also available as a QR code at GET /api/me/totp/qr. */
  uri: string;
}

/** POST /api/me/totp/confirm and /api/me/totp/recovery */
export interface RecoveryCodesResponse {
  /** Shown once: eight codes of sixteen characters in four groups. */
  recovery_codes: string[];
}

/** An account as administrators see it (GET /api/users). */
export interface UserAccount {
  id: number;
  username: string;
  role: Role;
  disabled: boolean;
  totp_enabled: boolean;
  recovery_codes_left: number;
  /** ISO 8601, null until the first sign-in. */
  last_login_at: string | null;
  created_at: string;
}

export interface UserList {
  users: UserAccount[];
  roles: Role[];
}

export interface CreateUserRequest {
  username: string;
  password: string;
  role: Role;
}

export interface UpdateUserRequest {
  role?: Role;
  disabled?: boolean;
}

/** POST /api/api-key */
export interface ApiKeyResponse {
  api_key: string;
}

/** POST /api/metrics-token: the read-only token for GET /metrics, shown this once. */
export interface MetricsTokenResponse {
  metrics_token: string;
  created_at: string;
}

/** Whether a metrics token is set (GET /api/settings); never the token itself. */
export interface MetricsTokenStatus {
  set: boolean;
  created_at: string | null;
}

/** GET /api/settings */
export interface SettingsResponse {
  ui: UiSettings;
  /** Administrators only: the API key in clear, or null when none is set. Absent for others. */
  api_key?: string | null;
  /** Whether a metrics token (for GET /metrics) is set, and since when; never the token itself. */
  metrics_token: MetricsTokenStatus;
  runtime: {
    version: string;
    data_dir: string;
    /** Which backend holds the data. */
    database_backend: 'sqlite' | 'postgres';
    /** The SQLite file, or on PostgreSQL the database URL with its password masked. */
    database_path: string;
    config_file: string | null;
    retention: { raw: string; hourly: string };
    uptime_seconds: number;
    log_level: string;
  };
  stats: {
    sensors: number;
    results: number;
    incidents: number;
    /** ISO 8601 of the oldest and newest stored raw result, null when none. */
    oldest_sample: string | null;
    newest_sample: string | null;
    database_bytes: number;
  };
}

/** PUT /api/settings */
export interface UpdateSettingsRequest {
  ui: Partial<Omit<UiSettings, 'tour_version'>>;
}
