import { Module } from '@nestjs/common';
import { SettingsRepository } from './settings.repository';

/**
 * The settings table on its own: the history's maintenance pass keeps its watermarks there, and
 * the settings' API in turn reads the history's statistics.
 */
@Module({ providers: [SettingsRepository], exports: [SettingsRepository] })
export class SettingsStorageModule {}
