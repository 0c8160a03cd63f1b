import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SensorEntity } from '../sensors/sensor.entity';

/** The columns every rollup tier shares: enough to derive uptime and latency statistics. */
abstract class RollupBucket {
  @PrimaryColumn({ name: 'sensor_id', type: 'integer' }) sensorId!: number;
  @PrimaryColumn({ name: 'bucket_start', type: 'integer' }) bucketStart!: number;
  @Column({ type: 'integer' }) count!: number;
  @Column({ type: 'integer' }) up!: number;
  @Column({ name: 'latency_sum', type: 'real' }) latencySum!: number;
  @Column({ name: 'latency_min', type: 'real', nullable: true }) latencyMin!: number | null;
  @Column({ name: 'latency_max', type: 'real', nullable: true }) latencyMax!: number | null;
}

@Entity('rollup_hourly', { withoutRowid: true })
export class HourlyRollupEntity extends RollupBucket {
  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_rollup_hourly_sensor' })
  sensor?: SensorEntity;
}

@Entity('rollup_daily', { withoutRowid: true })
export class DailyRollupEntity extends RollupBucket {
  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_rollup_daily_sensor' })
  sensor?: SensorEntity;
}
