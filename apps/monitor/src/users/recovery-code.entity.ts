import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

@Entity('recovery_codes')
@Index('IDX_recovery_codes_user', ['userId'])
export class RecoveryCodeEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'user_id', type: 'integer' }) userId!: number;
  /** SHA-256 of the code; the code itself is shown once and never stored. */
  @Column({ name: 'code_hash', type: 'varchar' }) codeHash!: string;
  @Column({ name: 'used_at', type: 'integer', nullable: true }) usedAt!: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_recovery_codes_user' })
  user?: UserEntity;
}
