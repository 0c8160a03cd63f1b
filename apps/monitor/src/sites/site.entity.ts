import { Check, Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type SiteKind = 'local' | 'external';

@Entity('sites')
@Unique('UQ_sites_name', ['name'])
@Check('CHK_sites_kind', `"kind" IN ('local','external')`)
@Check('CHK_sites_coordinates', `"lat" IS NULL AND "lon" IS NULL OR "lat" IS NOT NULL AND "lon" IS NOT NULL`)
export class SiteEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar', default: 'local' }) kind!: SiteKind;
  @Column({ type: 'real', nullable: true }) lat!: number | null;
  @Column({ type: 'real', nullable: true }) lon!: number | null;
  @Column({ type: 'boolean', default: false }) sample!: boolean;
  @Column({ name: 'managed_by', type: 'varchar', nullable: true }) managedBy!: string | null;
  @Column({ name: 'created_at', type: 'integer' }) createdAt!: number;
  @Column({ name: 'updated_at', type: 'integer' }) updatedAt!: number;
}
