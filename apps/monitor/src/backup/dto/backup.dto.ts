import type { BackupDays, BackupScope, BackupTable, RestoreResult } from '@monitor/contracts';
import { BACKUP_DAYS, BACKUP_SCOPES } from '@monitor/contracts';
import { IsIn, IsOptional } from 'class-validator';

export class BackupQueryDto {
  /** `config` (default): settings, API key, sites, channels, sensors and accounts; `history` adds incidents and rollups. */
  @IsOptional()
  @IsIn(BACKUP_SCOPES, { message: `scope must be one of ${BACKUP_SCOPES.join(', ')}` })
  scope?: BackupScope;

  /** History only: how many days of incidents and rollups (default 30). */
  @IsOptional()
  @IsIn(BACKUP_DAYS, { message: `days must be one of ${BACKUP_DAYS.join(', ')}` })
  days?: BackupDays;
}

export class RestoreResultDto implements RestoreResult {
  /** Rows written per table the document named (rollups count buckets, api_key 0 or 1). */
  counts!: Partial<Record<BackupTable, number>>;
  /** File name of the copy of the database made before the restore, beside the database. */
  safety_copy!: string;
  /** True when accounts were restored: every session of theirs ended (the restoring browser got a fresh cookie). */
  token_epoch_notice!: boolean;
}
