/** Error body of every 4xx and 5xx response. */
export interface ApiError {
  error: string;
}

export type BuildChannel = 'release' | 'dev' | 'local';

/** GET /api/version */
export interface VersionInfo {
  version: string;
  build: string;
  commit: string;
  build_date: string;
  channel: BuildChannel;
}

/** GET /healthz */
export interface HealthStatus {
  status: 'ok';
  version: string;
  /** Seconds since the process started. */
  uptime: number;
}
