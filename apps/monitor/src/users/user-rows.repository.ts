import { connectionOf, type SyncTx } from '../core/database/tx';

/** An account with its recovery codes as backup and restore carry it (times in ms). */
export interface AccountRecord {
  username: string;
  role: 'admin' | 'operator' | 'viewer';
  disabled: boolean;
  password_hash: string;
  token_epoch: number;
  totp_secret: string | null;
  totp_enabled: boolean;
  totp_last_step: number | null;
  ui: Record<string, string>;
  tour_version: number;
  last_login_at: number | null;
  /** null in a document that does not say: a new row takes the restore's time. */
  created_at: number | null;
  recovery_codes: { code_hash: string; used_at: number | null }[];
}

/*
 * The accounts' rows as backup and restore read and write them, on a connection of their own
 * (the backup's snapshot, the restore worker's). Nest-free.
 */

const parseOr = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

interface Row {
  id: number;
  username: string;
  role: AccountRecord['role'];
  disabled: number;
  password_hash: string;
  token_epoch: number;
  totp_secret: string | null;
  totp_enabled: number;
  totp_last_step: number | null;
  ui: string;
  tour_version: number;
  last_login_at: number | null;
  created_at: number;
}

/** Every account in id order, each with its recovery codes. */
export function exportAccounts(tx: SyncTx): (AccountRecord & { created_at: number })[] {
  const db = connectionOf(tx);
  const codes = new Map<number, { code_hash: string; used_at: number | null }[]>();
  for (const code of db
    .prepare('SELECT user_id, code_hash, used_at FROM recovery_codes ORDER BY user_id, id')
    .all() as { user_id: number; code_hash: string; used_at: number | null }[]) {
    const list = codes.get(code.user_id) ?? [];
    list.push({ code_hash: code.code_hash, used_at: code.used_at });
    codes.set(code.user_id, list);
  }
  return (db.prepare('SELECT * FROM users ORDER BY id').all() as Row[]).map((u) => ({
    username: u.username,
    role: u.role,
    disabled: u.disabled === 1,
    password_hash: u.password_hash,
    token_epoch: u.token_epoch,
    totp_secret: u.totp_secret,
    totp_enabled: u.totp_enabled === 1,
    totp_last_step: u.totp_last_step,
    ui: parseOr(u.ui, {}),
    tour_version: u.tour_version,
    last_login_at: u.last_login_at,
    created_at: u.created_at,
    recovery_codes: codes.get(u.id) ?? [],
  }));
}

/**
 * Makes the accounts those of `accounts`, matched by username in any case: others are deleted
 * (their codes go with them), matches updated, the rest inserted; each gets exactly its codes.
 */
export function importAccounts(tx: SyncTx, accounts: AccountRecord[], now: number): void {
  const db = connectionOf(tx);
  const stored = db.prepare('SELECT id, username FROM users').all() as { id: number; username: string }[];
  const wanted = new Set(accounts.map((a) => a.username.toLowerCase()));
  const remove = db.prepare('DELETE FROM users WHERE id = ?');
  for (const row of stored) if (!wanted.has(row.username.toLowerCase())) remove.run(row.id);
  const ids = new Map(stored.map((u) => [u.username.toLowerCase(), u.id]));
  const columns = `username = ?, password_hash = ?, role = ?, disabled = ?, token_epoch = ?, totp_secret = ?,
    totp_enabled = ?, totp_last_step = ?, ui = ?, tour_version = ?, last_login_at = ?`;
  const update = db.prepare(
    `UPDATE users SET ${columns}, created_at = coalesce(?, created_at), updated_at = ? WHERE id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO users (username, password_hash, role, disabled, token_epoch, totp_secret, totp_enabled,
       totp_last_step, ui, tour_version, last_login_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const clearCodes = db.prepare('DELETE FROM recovery_codes WHERE user_id = ?');
  const addCode = db.prepare('INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, ?)');
  for (const a of accounts) {
    const values = [
      a.username,
      a.password_hash,
      a.role,
      a.disabled ? 1 : 0,
      a.token_epoch,
      a.totp_secret,
      a.totp_enabled ? 1 : 0,
      a.totp_last_step,
      JSON.stringify(a.ui),
      a.tour_version,
      a.last_login_at,
    ];
    let id = ids.get(a.username.toLowerCase());
    if (id !== undefined) update.run(...values, a.created_at, now, id);
    else id = Number(insert.run(...values, a.created_at ?? now, now).lastInsertRowid);
    clearCodes.run(id);
    for (const code of a.recovery_codes) addCode.run(id, code.code_hash, code.used_at);
  }
}
