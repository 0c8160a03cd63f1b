import { Check, Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type Role = 'admin' | 'operator' | 'viewer';

@Entity('users')
@Unique('UQ_users_username', ['username'])
@Check('CHK_users_role', `"role" IN ('admin','operator','viewer')`)
export class UserEntity {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', collation: 'NOCASE' }) username!: string;
  @Column({ name: 'password_hash', type: 'varchar' }) passwordHash!: string;
  @Column({ type: 'varchar' }) role!: Role;
  @Column({ type: 'boolean', default: false }) disabled!: boolean;
  /** Bumped on password change; sessions naming an older epoch are refused. */
  @Column({ name: 'token_epoch', type: 'integer', default: 0 }) tokenEpoch!: number;
  @Column({ name: 'totp_secret', type: 'varchar', nullable: true }) totpSecret!: string | null;
  @Column({ name: 'totp_enabled', type: 'boolean', default: false }) totpEnabled!: boolean;
  @Column({ name: 'totp_last_step', type: 'integer', nullable: true }) totpLastStep!: number | null;
  @Column({ type: 'simple-json', default: '{}' }) ui!: Record<string, string>;
  @Column({ name: 'tour_version', type: 'integer', default: 0 }) tourVersion!: number;
  @Column({ name: 'last_login_at', type: 'integer', nullable: true }) lastLoginAt!: number | null;
  @Column({ name: 'created_at', type: 'integer' }) createdAt!: number;
  @Column({ name: 'updated_at', type: 'integer' }) updatedAt!: number;
}
