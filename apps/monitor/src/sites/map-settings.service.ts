import { Injectable, OnModuleInit } from '@nestjs/common';
import type { MapSettings, MapSettingsInput } from '@monitor/contracts';
import { EventBus } from '../core/events/event-bus';
import { SettingsRepository } from '../settings/settings.repository';
import { tileOrigins, validateTileUrl } from './tile-url';

/** SettingsRepository key of the installation-wide map settings. */
export const MAP_SETTINGS_KEY = 'map';

export const MAP_DEFAULTS: Readonly<MapSettings> = { tile_url: '', attribution: '', borders: 'on' };

/** A stored value made safe to use: wrong types fall back to the defaults (a restored backup may carry anything). */
function normalise(stored: unknown): MapSettings {
  const value = (typeof stored === 'object' && stored !== null ? stored : {}) as Record<string, unknown>;
  return {
    tile_url: typeof value.tile_url === 'string' ? value.tile_url : MAP_DEFAULTS.tile_url,
    attribution: typeof value.attribution === 'string' ? value.attribution : MAP_DEFAULTS.attribution,
    borders: value.borders === 'off' ? 'off' : 'on',
  };
}

/**
 * The map settings, held in memory: the security headers read the tile origins on every
 * response, so they are resolved once at start and again whenever the settings are saved.
 */
@Injectable()
export class MapSettingsService implements OnModuleInit {
  private current: MapSettings = { ...MAP_DEFAULTS };
  private origins: string[] = [];

  constructor(
    private readonly store: SettingsRepository,
    private readonly events: EventBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  /** Reads the stored settings again (at start, and after anything else wrote them, such as a restore). */
  async reload(): Promise<void> {
    this.apply(normalise(await this.store.get<unknown>(MAP_SETTINGS_KEY, null)));
  }

  get(): MapSettings {
    return { ...this.current };
  }

  /** Origins the browser fetches tiles from (before removing the dashboard's own origin). */
  tileOrigins(): readonly string[] {
    return this.origins;
  }

  /** Absent fields keep their stored value. */
  async save(input: MapSettingsInput): Promise<MapSettings> {
    const stored = normalise(await this.store.get<unknown>(MAP_SETTINGS_KEY, null));
    const next: MapSettings = {
      tile_url: input.tile_url === undefined ? stored.tile_url : input.tile_url.trim(),
      attribution: input.attribution ?? stored.attribution,
      borders: input.borders ?? stored.borders,
    };
    if (input.tile_url !== undefined) validateTileUrl(next.tile_url);
    await this.store.set(MAP_SETTINGS_KEY, next);
    this.apply(next);
    this.events.emit('settings', {});
    return this.get();
  }

  private apply(settings: MapSettings): void {
    this.current = settings;
    this.origins = tileOrigins(settings.tile_url);
  }
}
