import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ChannelEntity } from '../channels/channel.entity';
import { SensorEntity } from './sensor.entity';

/** Which channels a sensor alerts. */
@Entity('sensor_channels', { withoutRowid: true })
@Index('IDX_sensor_channels_channel', ['channelId'])
export class SensorChannelEntity {
  @PrimaryColumn({ name: 'sensor_id', type: 'integer' }) sensorId!: number;
  @PrimaryColumn({ name: 'channel_id', type: 'integer' }) channelId!: number;

  @ManyToOne(() => SensorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sensor_id', foreignKeyConstraintName: 'FK_sensor_channels_sensor' })
  sensor?: SensorEntity;

  @ManyToOne(() => ChannelEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'FK_sensor_channels_channel' })
  channel?: ChannelEntity;
}
