import {
  Check,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { SensorEntity } from '../sensors/sensor.entity';

@Entity('maintenance_windows')
@Index('IDX_maintenance_windows_ends', ['endsAt'])
@Index('UQ_maintenance_windows_declared_name', ['name'], { unique: true, where: `"managed_by" = 'config'` })
@Check('CHK_maintenance_windows_order', `"starts_at" < "ends_at"`)
export class MaintenanceWindowEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ name: 'starts_at', type: 'integer' }) startsAt!: number;
  @Column({ name: 'ends_at', type: 'integer' }) endsAt!: number;
  /** An explicit flag, so that deleting the last listed sensor never widens a window to every sensor. */
  @Column({ name: 'all_sensors', type: 'boolean', default: false }) allSensors!: boolean;
  @Column({ name: 'managed_by', type: 'varchar', nullable: true }) managedBy!: string | null;
  @Column({ name: 'created_at', type: 'integer' }) createdAt!: number;
}

@Entity('maintenance_window_sensors', { withoutRowid: true })
@Index('IDX_maintenance_window_sensors_sensor', ['sensorId'])
export class MaintenanceWindowSensorEntity {
  @PrimaryColumn({ name: 'window_id', type: 'integer' }) windowId!: number;
  @PrimaryColumn({ name: 'sensor_id', type: 'integer' }) sensorId!: number;

  @ManyToOne(() => MaintenanceWindowEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'window_id', foreignKeyConstraintName: 'FK_maintenance_window_sensors_window' })
  window?: MaintenanceWindowEntity;

  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_maintenance_window_sensors_sensor' })
  sensor?: SensorEntity;
}
