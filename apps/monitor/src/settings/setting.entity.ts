import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Installation-wide settings (map, setup mode, sensor order…), one JSON value per key. */
@Entity('settings', { withoutRowid: true })
export class SettingEntity {
  @PrimaryColumn({ type: 'varchar' }) key!: string;
  @Column({ type: 'text' }) value!: string;
  @Column({ name: 'updated_at', type: 'integer' }) updatedAt!: number;
}
