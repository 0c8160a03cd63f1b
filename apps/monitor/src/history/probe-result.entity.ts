import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SensorEntity } from '../sensors/sensor.entity';

/** One stored probe result; (sensor_id, ts) is the key, so per-sensor time ranges are index range scans. */
@Entity('probe_results', { withoutRowid: true })
export class ProbeResultEntity {
  @PrimaryColumn({ name: 'sensor_id', type: 'integer' }) sensorId!: number;
  @PrimaryColumn({ type: 'integer' }) ts!: number;
  @Column({ type: 'boolean' }) success!: boolean;
  @Column({ name: 'status_code', type: 'integer', nullable: true }) statusCode!: number | null;
  @Column({ name: 'latency_ms', type: 'real', nullable: true }) latencyMs!: number | null;
  @Column({ type: 'text', default: '' }) message!: string;
  /** The instance that probed it ('' in single-instance mode); migration 5. */
  @Column({ type: 'text', default: '' }) instance!: string;

  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_probe_results_sensor' })
  sensor?: SensorEntity;
}
