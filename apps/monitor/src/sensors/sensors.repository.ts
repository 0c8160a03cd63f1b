import { Injectable } from '@nestjs/common';
import type { SensorType } from '@monitor/contracts';
import { DataSource } from 'typeorm';
import type { SensorDefinition } from '../scheduler/runtime-entry';
import { SensorChannelEntity } from './sensor-channel.entity';
import { SensorEntity } from './sensor.entity';

export const toDefinition = (s: SensorEntity, channelIds: number[]): SensorDefinition => ({
  id: s.id,
  name: s.name,
  type: s.type as SensorType,
  target: s.target,
  interval: s.interval,
  retries: s.retries,
  reminderEvery: s.reminderEvery,
  group: s.group,
  tags: s.tags,
  enabled: s.enabled,
  options: s.options,
  parentId: s.parentId,
  channelIds,
});

/** Reads sensors with their channel links. */
@Injectable()
export class SensorsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async all(): Promise<{ sensors: SensorEntity[]; channels: Map<number, number[]> }> {
    const sensors = await this.dataSource
      .getRepository(SensorEntity)
      .find({ order: { sortOrder: 'ASC', id: 'ASC' } });
    const links = await this.dataSource.getRepository(SensorChannelEntity).find();
    const channels = new Map<number, number[]>();
    for (const link of links)
      channels.set(link.sensorId, [...(channels.get(link.sensorId) ?? []), link.channelId]);
    return { sensors, channels };
  }

  async one(id: number): Promise<{ sensor: SensorEntity; channelIds: number[] } | null> {
    const sensor = await this.dataSource.getRepository(SensorEntity).findOneBy({ id });
    if (!sensor) return null;
    const links = await this.dataSource
      .getRepository(SensorChannelEntity)
      .find({ where: { sensorId: id }, order: { channelId: 'ASC' } });
    return { sensor, channelIds: links.map((l) => l.channelId) };
  }

  async definitions(): Promise<SensorDefinition[]> {
    const { sensors, channels } = await this.all();
    return sensors.map((s) => toDefinition(s, channels.get(s.id) ?? []));
  }

  async definition(id: number): Promise<SensorDefinition | null> {
    const found = await this.one(id);
    return found ? toDefinition(found.sensor, found.channelIds) : null;
  }
}
