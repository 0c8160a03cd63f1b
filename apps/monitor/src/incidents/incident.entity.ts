import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { SensorEntity } from '../sensors/sensor.entity';

@Entity('incidents')
@Index('IDX_incidents_sensor_started', ['sensorId', 'startedAt'])
@Index('IDX_incidents_started', ['startedAt'])
@Index('IDX_incidents_open', ['sensorId'], { unique: true, where: '"resolved_at" IS NULL' })
export class IncidentEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'sensor_id', type: 'integer' }) sensorId!: number;
  @Column({ name: 'started_at', type: 'integer' }) startedAt!: number;
  @Column({ name: 'resolved_at', type: 'integer', nullable: true }) resolvedAt!: number | null;
  @Column({ type: 'text', default: '' }) cause!: string;
  @Column({ type: 'boolean', default: false }) acknowledged!: boolean;
  @Column({ name: 'acknowledged_by', type: 'varchar', nullable: true }) acknowledgedBy!: string | null;
  @Column({ name: 'acknowledged_at', type: 'integer', nullable: true }) acknowledgedAt!: number | null;
  @Column({ type: 'text', default: '' }) note!: string;
  @Column({ type: 'boolean', default: false }) reconstructed!: boolean;

  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_incidents_sensor' })
  sensor?: SensorEntity;
}
