import type { SensorStatus } from '@monitor/contracts';
import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { SiteEntity } from '../sites/site.entity';

@Entity('sensors')
@Index('IDX_sensors_name', ['name'])
@Index('UQ_sensors_declared_name', ['name'], { unique: true, where: `"managed_by" = 'config'` })
@Index('IDX_sensors_site', ['siteId'])
@Index('IDX_sensors_parent', ['parentId'])
@Check('CHK_sensors_status', `"status" IN ('up','down','warn','unknown','paused')`)
export class SensorEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) type!: string;
  @Column({ type: 'varchar' }) target!: string;
  @Column({ type: 'integer', default: 60 }) interval!: number;
  @Column({ type: 'integer', default: 3 }) retries!: number;
  @Column({ name: 'reminder_every', type: 'integer', default: 0 }) reminderEvery!: number;
  @Column({ name: 'group_name', type: 'varchar', default: '' }) group!: string;
  @Column({ type: 'simple-json', default: '[]' }) tags!: string[];
  @Column({ name: 'site_id', type: 'integer', nullable: true }) siteId!: number | null;
  @Column({ name: 'parent_id', type: 'integer', nullable: true }) parentId!: number | null;
  @Column({ type: 'boolean', default: true }) enabled!: boolean;
  @Column({ type: 'simple-json', default: '{}' }) options!: Record<string, unknown>;
  @Column({ name: 'sort_order', type: 'integer', default: 0 }) sortOrder!: number;
  @Column({ type: 'boolean', default: false }) sample!: boolean;
  @Column({ name: 'managed_by', type: 'varchar', nullable: true }) managedBy!: string | null;
  @Column({ type: 'varchar', default: 'unknown' }) status!: SensorStatus;
  @Column({ type: 'text', default: '' }) message!: string;
  @Column({ name: 'last_checked_at', type: 'integer', nullable: true }) lastCheckedAt!: number | null;
  @Column({ name: 'latency_ms', type: 'real', nullable: true }) latencyMs!: number | null;
  @Column({ type: 'integer', default: 0 }) streak!: number;
  @Column({ name: 'status_changed_at', type: 'integer', nullable: true }) statusChangedAt!: number | null;
  @Column({ name: 'last_alert_at', type: 'integer', nullable: true }) lastAlertAt!: number | null;
  @Column({ name: 'created_at', type: 'integer' }) createdAt!: number;
  @Column({ name: 'updated_at', type: 'integer' }) updatedAt!: number;

  @ManyToOne(() => SiteEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'site_id', foreignKeyConstraintName: 'FK_sensors_site' })
  site?: SiteEntity | null;

  @ManyToOne(() => SensorEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'parent_id', foreignKeyConstraintName: 'FK_sensors_parent' })
  parent?: SensorEntity | null;
}
