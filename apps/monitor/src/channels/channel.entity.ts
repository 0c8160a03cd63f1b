import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity('channels')
@Index('IDX_channels_name', ['name'])
@Index('UQ_channels_declared_name', ['name'], { unique: true, where: `"managed_by" = 'config'` })
export class ChannelEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) type!: string;
  @Column({ type: 'simple-json', default: '{}' }) config!: Record<string, unknown>;
  @Column({ type: 'boolean', default: true }) enabled!: boolean;
  @Column({ name: 'title_template', type: 'text', default: '' }) titleTemplate!: string;
  @Column({ name: 'body_template', type: 'text', default: '' }) bodyTemplate!: string;
  @Column({ name: 'last_error', type: 'text', default: '' }) lastError!: string;
  @Column({ name: 'last_error_at', type: 'integer', nullable: true }) lastErrorAt!: number | null;
  @Column({ name: 'managed_by', type: 'varchar', nullable: true }) managedBy!: string | null;
  @Column({ name: 'created_at', type: 'integer' }) createdAt!: number;
  @Column({ name: 'updated_at', type: 'integer' }) updatedAt!: number;
}
