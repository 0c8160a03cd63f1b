import { ChannelEntity } from './channels/channel.entity';
import { DailyRollupEntity, HourlyRollupEntity } from './history/rollup-bucket.entity';
import { ProbeResultEntity } from './history/probe-result.entity';
import { IncidentEntity } from './incidents/incident.entity';
import {
  MaintenanceWindowEntity,
  MaintenanceWindowSensorEntity,
} from './maintenance/maintenance-window.entity';
import { SensorChannelEntity } from './sensors/sensor-channel.entity';
import { SensorEntity } from './sensors/sensor.entity';
import { InstallationSecretEntity } from './settings/installation-secret.entity';
import { SettingEntity } from './settings/setting.entity';
import { SiteEntity } from './sites/site.entity';
import { RecoveryCodeEntity } from './users/recovery-code.entity';
import { UserEntity } from './users/user.entity';

/** Every table's entity; the schema itself is owned by the migrations. */
export const ENTITIES = [
  InstallationSecretEntity,
  SettingEntity,
  UserEntity,
  RecoveryCodeEntity,
  SiteEntity,
  ChannelEntity,
  SensorEntity,
  SensorChannelEntity,
  ProbeResultEntity,
  HourlyRollupEntity,
  DailyRollupEntity,
  IncidentEntity,
  MaintenanceWindowEntity,
  MaintenanceWindowSensorEntity,
];
