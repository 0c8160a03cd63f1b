/** What `GET /api/backup` writes: the configuration alone, or with incidents and rollups. */
export type BackupScope = 'config' | 'history';
export const BACKUP_DAYS = ['7', '30', '90', 'all'] as const;
export type BackupDays = (typeof BACKUP_DAYS)[number];

/** `POST /api/restore`: how many rows each table received, and the copy made before. */
export interface RestoreResult {
  readonly counts: Readonly<Record<string, number>>;
  /** File name of the byte-exact copy of the database made before writing. */
  readonly safety_copy: string;
  /** Restored accounts carry session epochs: other browsers may have to sign in again. */
  readonly token_epoch_notice: boolean;
}

/** The URL that downloads a backup (a same-origin GET: the browser sends the session cookie). */
export function backupUrl(scope: BackupScope, days: BackupDays): string {
  return scope === 'history' ? `/api/backup?scope=history&days=${days}` : '/api/backup?scope=config';
}
