import type { BuildChannel, HealthStatus, VersionInfo } from '@monitor/contracts';

export class HealthStatusDto implements HealthStatus {
  /** Always `ok` when the service answers and its database responds. */
  status!: 'ok';
  /** The running version. */
  version!: string;
  /** Seconds since the process started. */
  uptime!: number;
}

export class VersionInfoDto implements VersionInfo {
  /** Semantic version of the running build. */
  version!: string;
  /** Build number. */
  build!: string;
  /** Source commit the build was made from. */
  commit!: string;
  /** When the build was made, ISO 8601 UTC. */
  build_date!: string;
  /** `release` for a tagged build, `dev` for a development branch build, `local` for a working-tree build. */
  channel!: BuildChannel;
}
