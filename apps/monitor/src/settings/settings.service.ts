import * as fs from 'node:fs';
import { Inject, Injectable } from '@nestjs/common';
import { formatDuration } from '@monitor/domain';
import type { SessionInfo, SettingsResponse, UiSettings } from '@monitor/contracts';
import type { Principal } from '../core/http/principal';
import { hasRole } from '../core/http/principal';
import { buildInfo } from '../core/build-info';
import { Clock } from '../core/clock/clock';
import { isoOrNull } from '../core/clock/iso';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import { EventBus } from '../core/events/event-bus';
import type { MonitorConfig } from '../core/config/monitor-config';
import { databasePath } from '../core/database/database-path';
import { maskDatabaseUrl } from '../core/config/database-url';
import { HistoryStats } from '../history/history-stats';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { SensorsRepository } from '../sensors/sensors.repository';
import { UsersRepository, type User } from '../users/users.repository';
import { SettingsRepository } from './settings.repository';
import { UsersService } from '../users/users.service';
import { UiSettingsPatchDto } from './dto/settings.dto';
import { InstallationSecretsService } from './installation-secrets.service';
import { uiSettingsOf } from './ui-settings';

@Injectable()
export class SettingsService {
  constructor(
    private readonly accounts: UsersRepository,
    private readonly sensors: SensorsRepository,
    private readonly incidents: IncidentsRepository,
    private readonly users: UsersService,
    private readonly secrets: InstallationSecretsService,
    private readonly history: HistoryStats,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    private readonly events: EventBus,
    private readonly settingsRows: SettingsRepository,
  ) {}

  /** Everything but setup_host_allowed, which depends on the request (the controller adds it). */
  async sessionInfo(
    principal: Principal<User> | undefined,
  ): Promise<Omit<SessionInfo, 'setup_host_allowed'>> {
    const setupNeeded = (await this.users.count()) === 0;
    // The metrics token reads /metrics and nothing else: here it is nobody.
    if (!principal || principal.kind === 'metrics_token')
      return {
        setup_needed: setupNeeded,
        authenticated: false,
        via: null,
        user: null,
        ui: uiSettingsOf(null),
      };
    if (principal.kind === 'api_key') {
      return {
        setup_needed: setupNeeded,
        authenticated: true,
        via: 'api_key',
        user: null,
        ui: uiSettingsOf(null),
      };
    }
    const { user } = principal;
    return {
      setup_needed: setupNeeded,
      authenticated: true,
      via: 'session',
      user: {
        id: user.id,
        username: user.username,
        role: user.role,
        totp_enabled: user.totpEnabled,
        recovery_codes_left: user.totpEnabled ? await this.users.recoveryCodesLeftFor(user.id) : 0,
      },
      ui: uiSettingsOf(user),
    };
  }

  async settings(principal: Principal<User>): Promise<SettingsResponse> {
    const ui = uiSettingsOf(principal.kind === 'user' ? principal.user : null);
    const tokenMadeAt = await this.secrets.metricsTokenCreatedAt();
    const response: SettingsResponse = {
      ui,
      metrics_token: { set: tokenMadeAt !== null, created_at: isoOrNull(tokenMadeAt) },
      runtime: this.runtime(),
      stats: await this.stats(),
    };
    if (hasRole(principal, 'admin')) response.api_key = await this.secrets.apiKey();
    return response;
  }

  /** Writes to the calling account; the API key has no account, so its writes go nowhere. */
  async updateUi(principal: Principal<User>, patch: UiSettingsPatchDto): Promise<UiSettings> {
    if (principal.kind !== 'user') return uiSettingsOf(null);
    const user = principal.user;
    const ui = { ...user.ui };
    for (const [key, value] of Object.entries(patch)) if (value !== undefined) ui[key] = value as string;
    await this.accounts.setUi(user.id, ui, this.clock.now());
    this.events.emit('settings', {});
    return uiSettingsOf({ ...user, ui });
  }

  /** Records the highest tour version finished; a lower version never undoes a higher one. */
  async recordTour(principal: Principal<User>, version: number): Promise<void> {
    if (principal.kind !== 'user') return;
    await this.accounts.raiseTourVersion(principal.user.id, version);
  }

  private runtime(): SettingsResponse['runtime'] {
    return {
      version: buildInfo().version,
      data_dir: this.config.data_dir,
      database_backend: this.config.database_url ? 'postgres' : 'sqlite',
      // On PostgreSQL the URL with its password masked, as the doctor shows it.
      database_path: this.config.database_url
        ? maskDatabaseUrl(this.config.database_url)
        : databasePath(this.config.data_dir),
      config_file: this.config.config_file,
      retention: {
        raw: formatDuration(this.config.retention.raw_seconds),
        hourly: formatDuration(this.config.retention.hourly_seconds),
      },
      uptime_seconds: Math.floor(process.uptime()),
      log_level: this.config.log_level,
    };
  }

  private async stats(): Promise<SettingsResponse['stats']> {
    const counts = { sensors: await this.sensors.count(), incidents: await this.incidents.count() };
    const results = await this.history.results();
    const file = databasePath(this.config.data_dir);
    const size = (path: string) => (fs.existsSync(path) ? fs.statSync(path).size : 0);
    return {
      sensors: counts.sensors,
      results: results.count,
      incidents: counts.incidents,
      oldest_sample: isoOrNull(results.oldest),
      newest_sample: isoOrNull(results.newest),
      database_bytes: (await this.settingsRows.serverDatabaseBytes()) ?? size(file) + size(`${file}-wal`),
    };
  }
}
