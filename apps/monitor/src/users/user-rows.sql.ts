import type { BackupAccount, Role } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import type { SqlExecutor } from '../core/database/sql-client';
import { parseJsonOr, storedBoolean } from '../core/database/stored-values';

/** An account with its recovery codes as backup and restore carry it (times in ms, not ISO text). */
export interface AccountRecord extends Omit<
  BackupAccount,
  'last_login_at' | 'created_at' | 'recovery_codes'
> {
  last_login_at: number | null;
  /** null in a document that does not say: a new row takes the restore's time. */
  created_at: number | null;
  recovery_codes: { code_hash: string; used_at: number | null }[];
}

/*
 * The accounts' rows as backup and restore read and write them, in one SQL text for both
 * backends (the backup's snapshot, the restore's transaction). Nest-free.
 */

/** A `users` row as both backends return it (booleans as 1/0 or true/false, `ui` as JSON text). */
export interface UserRow {
  id: number;
  username: string;
  password_hash: string;
  role: Role;
  disabled: unknown;
  token_epoch: number;
  totp_secret: string | null;
  totp_enabled: unknown;
  totp_last_step: number | null;
  ui: string;
  tour_version: number;
  last_login_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Every account in id order, each with its recovery codes. */
export async function exportAccounts(tx: SqlExecutor): Promise<(AccountRecord & { created_at: number })[]> {
  const codes = new Map<number, { code_hash: string; used_at: number | null }[]>();
  for (const code of await tx.all<{ user_id: number; code_hash: string; used_at: number | null }>(
    'SELECT user_id, code_hash, used_at FROM recovery_codes ORDER BY user_id, id',
  )) {
    const list = codes.get(code.user_id) ?? [];
    list.push({ code_hash: code.code_hash, used_at: code.used_at });
    codes.set(code.user_id, list);
  }
  const users = await tx.all<Omit<UserRow, 'updated_at'>>(
    `SELECT id, username, role, disabled, password_hash, token_epoch, totp_secret, totp_enabled, totp_last_step, ui,
       tour_version, last_login_at, created_at FROM users ORDER BY id`,
  );
  return users.map((u) => ({
    username: u.username,
    role: u.role,
    disabled: storedBoolean(u.disabled),
    password_hash: u.password_hash,
    token_epoch: u.token_epoch,
    totp_secret: u.totp_secret,
    totp_enabled: storedBoolean(u.totp_enabled),
    totp_last_step: u.totp_last_step,
    ui: parseJsonOr(u.ui, {}),
    tour_version: u.tour_version,
    last_login_at: u.last_login_at,
    created_at: u.created_at,
    recovery_codes: codes.get(u.id) ?? [],
  }));
}

/** Token epochs are 32-bit integer columns on PostgreSQL. */
const MAX_TOKEN_EPOCH = 2_147_483_647;

/**
 * Makes the accounts those of `accounts`, matched by username in any case: others are deleted
 * (their codes go with them), matches updated, the rest inserted; each gets exactly its codes.
 * Every restored account's token epoch becomes one past the higher of its stored epoch and the
 * document's, so no session issued before the restore is valid after it: a session ended by a
 * password change, a disable or an older restore cannot come back with an older document.
 */
export async function importAccounts(tx: SqlExecutor, accounts: AccountRecord[], now: number): Promise<void> {
  const stored = await tx.all<{ id: number; username: string; token_epoch: number }>(
    'SELECT id, username, token_epoch FROM users',
  );
  const wanted = new Set(accounts.map((a) => a.username.toLowerCase()));
  for (const row of stored)
    if (!wanted.has(row.username.toLowerCase())) await tx.run('DELETE FROM users WHERE id = ?', [row.id]);
  const byName = new Map(stored.map((u) => [u.username.toLowerCase(), u]));
  const columns = `username = ?, password_hash = ?, role = ?, disabled = ?, token_epoch = ?, totp_secret = ?,
    totp_enabled = ?, totp_last_step = ?, ui = ?, tour_version = ?, last_login_at = ?`;
  for (const a of accounts) {
    const match = byName.get(a.username.toLowerCase());
    const epoch = Math.max(Number(match?.token_epoch ?? 0), a.token_epoch) + 1;
    if (epoch > MAX_TOKEN_EPOCH)
      throw new InvalidInputError(
        `accounts: the token epoch of "${a.username}" cannot go past ${MAX_TOKEN_EPOCH}`,
      );
    const values = [
      a.username,
      a.password_hash,
      a.role,
      a.disabled,
      epoch,
      a.totp_secret,
      a.totp_enabled,
      a.totp_last_step,
      JSON.stringify(a.ui),
      a.tour_version,
      a.last_login_at,
    ];
    let id = match?.id;
    if (id !== undefined)
      await tx.run(
        `UPDATE users SET ${columns}, created_at = coalesce(?, created_at), updated_at = ? WHERE id = ?`,
        [...values, a.created_at, now, id],
      );
    else
      id = Number(
        (await tx.get<{ id: number }>(
          `INSERT INTO users (username, password_hash, role, disabled, token_epoch, totp_secret, totp_enabled,
             totp_last_step, ui, tour_version, last_login_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [...values, a.created_at ?? now, now],
        ))!.id,
      );
    await tx.run('DELETE FROM recovery_codes WHERE user_id = ?', [id]);
    for (const code of a.recovery_codes)
      await tx.run('INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, ?)', [
        id,
        code.code_hash,
        code.used_at,
      ]);
  }
}
