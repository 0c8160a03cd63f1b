import type { BackupTable } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import type Database from 'better-sqlite3';
import { entryKey, readIncident, readRollupBlock, refKey, refLabel } from './backup-format';
import type { RestorePlan } from './restore-plan';

/** What applyRestore reads of a checked plan: plain data, so it can be sent to a worker thread. */
export type PlanData = Pick<
  RestorePlan,
  'settings' | 'apiKey' | 'sites' | 'channels' | 'sensors' | 'accounts' | 'ranges'
>;

/** What changed, for the scheduler and the live events afterwards. */
export interface RestoreOutcome {
  counts: Partial<Record<BackupTable, number>>;
  sensors: { created: number[]; updated: number[]; deleted: number[] };
  channels: { created: number[]; updated: number[]; deleted: number[] };
}

export interface ApplyContext {
  now: number;
  /** The API key's stored form (hash and sealed copy), when the document gives one. */
  apiKeyRows: { hash: string; sealed: string } | null;
  /** Reads one large table's rows again from the received document. */
  scan(
    table: 'incidents' | 'rollup_hourly' | 'rollup_daily',
    onRow: (index: number, row: unknown) => void,
  ): void;
}

/** Keys of the installation_secrets rows that hold the API key. */
export const API_KEY_ROWS = { hash: 'api_key_hash', sealed: 'api_key_sealed' } as const;

interface Named {
  id: number;
  name: string;
  /** Set for rows the configuration file declares: the file wins, so a restore leaves them be. */
  managed_by?: string | null;
}

/**
 * Pairs the document's entries with stored rows of the same name: the first entry of a name
 * with the oldest row of that name, and so on. Answers entry key → stored id (matched only).
 */
function pairByName(stored: Named[], entries: { name: string; seq: number }[]): Map<string, number> {
  const byName = new Map<string, number[]>();
  for (const row of stored) byName.set(row.name, [...(byName.get(row.name) ?? []), row.id]);
  const wanted = new Map<string, number[]>();
  for (const e of entries) wanted.set(e.name, [...(wanted.get(e.name) ?? []), e.seq]);
  const pairs = new Map<string, number>();
  for (const [name, seqs] of wanted) {
    const ids = byName.get(name) ?? [];
    [...seqs]
      .sort((a, b) => a - b)
      .forEach((seq, i) => {
        if (i < ids.length) pairs.set(entryKey(name, seq), ids[i]);
      });
  }
  return pairs;
}

/** Entry keys of stored rows as a backup would name them (a name's rows numbered by id). */
function keysOfStored(stored: Named[]): Map<string, number> {
  const seen = new Map<string, number>();
  const keys = new Map<string, number>();
  for (const row of stored) {
    const seq = (seen.get(row.name) ?? 0) + 1;
    seen.set(row.name, seq);
    keys.set(entryKey(row.name, seq), row.id);
  }
  return keys;
}

/**
 * Writes a checked document. Runs inside one transaction opened by the caller: every table the
 * document names is replaced, the others are left alone. Sensors, channels and sites are matched
 * by name and accounts by username, so what exists in both keeps its id (and, for a sensor, its
 * raw results). Throws to roll everything back.
 */
export function applyRestore(db: Database.Database, plan: PlanData, context: ApplyContext): RestoreOutcome {
  const { now } = context;
  const outcome: RestoreOutcome = {
    counts: {},
    sensors: { created: [], updated: [], deleted: [] },
    channels: { created: [], updated: [], deleted: [] },
  };
  const counts = outcome.counts;

  if (plan.settings) {
    db.prepare(`DELETE FROM settings WHERE substr(key, 1, 8) <> 'history.'`).run();
    const insert = db.prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)');
    for (const [key, value] of plan.settings) insert.run(key, JSON.stringify(value), now);
    counts.settings = plan.settings.size;
  }

  if (plan.apiKey !== undefined) {
    db.prepare('DELETE FROM installation_secrets WHERE key IN (?, ?)').run(
      API_KEY_ROWS.hash,
      API_KEY_ROWS.sealed,
    );
    if (plan.apiKey !== null) {
      if (!context.apiKeyRows) throw new Error('the API key was not prepared for storing');
      const insert = db.prepare('INSERT INTO installation_secrets (key, value, created_at) VALUES (?, ?, ?)');
      insert.run(API_KEY_ROWS.hash, context.apiKeyRows.hash, now);
      insert.run(API_KEY_ROWS.sealed, context.apiKeyRows.sealed, now);
    }
    counts.api_key = plan.apiKey === null ? 0 : 1;
  }

  // Sites: by name (unique).
  if (plan.sites) {
    const stored = db.prepare('SELECT id, name, managed_by FROM sites').all() as Named[];
    const wanted = new Set(plan.sites.map((s) => s.name));
    const remove = db.prepare('DELETE FROM sites WHERE id = ?');
    for (const row of stored) if (!wanted.has(row.name) && !row.managed_by) remove.run(row.id);
    const ids = new Map(stored.map((s) => [s.name, s.id]));
    const managed = new Set(stored.filter((s) => s.managed_by).map((s) => s.id));
    const update = db.prepare(
      'UPDATE sites SET kind = ?, lat = ?, lon = ?, sample = ?, updated_at = ? WHERE id = ?',
    );
    const insert = db.prepare(
      'INSERT INTO sites (name, kind, lat, lon, sample, managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)',
    );
    for (const site of plan.sites) {
      const id = ids.get(site.name);
      if (id !== undefined) {
        if (!managed.has(id)) update.run(site.kind, site.lat, site.lon, site.sample ? 1 : 0, now, id);
      } else insert.run(site.name, site.kind, site.lat, site.lon, site.sample ? 1 : 0, now, now);
    }
    counts.sites = plan.sites.length;
  }
  const siteIds = new Map(
    (db.prepare('SELECT id, name FROM sites').all() as Named[]).map((s) => [s.name, s.id]),
  );

  // Channels: by name (and seq where names repeat).
  let channelIds: Map<string, number>;
  if (plan.channels) {
    const stored = db.prepare('SELECT id, name, managed_by FROM channels ORDER BY id').all() as Named[];
    const pairs = pairByName(stored, plan.channels);
    const kept = new Set(pairs.values());
    const managed = new Set(stored.filter((c) => c.managed_by).map((c) => c.id));
    const remove = db.prepare('DELETE FROM channels WHERE id = ?');
    for (const row of stored)
      if (!kept.has(row.id) && !managed.has(row.id)) {
        // Cascades to the sensors' links to it.
        remove.run(row.id);
        outcome.channels.deleted.push(row.id);
      }
    const update = db.prepare(
      `UPDATE channels SET type = ?, config = ?, enabled = ?, title_template = ?, body_template = ?, updated_at = ?
       WHERE id = ?`,
    );
    const insert = db.prepare(
      `INSERT INTO channels (name, type, config, enabled, title_template, body_template, last_error, last_error_at,
         managed_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '', NULL, NULL, ?, ?)`,
    );
    channelIds = new Map();
    for (const c of plan.channels) {
      const key = entryKey(c.name, c.seq);
      const values = [c.type, JSON.stringify(c.config), c.enabled ? 1 : 0, c.title_template, c.body_template];
      let id = pairs.get(key);
      if (id !== undefined) {
        if (!managed.has(id)) {
          update.run(...values, now, id);
          outcome.channels.updated.push(id);
        }
      } else {
        id = Number(insert.run(c.name, ...values, now, now).lastInsertRowid);
        outcome.channels.created.push(id);
      }
      channelIds.set(key, id);
    }
    counts.channels = plan.channels.length;
  } else {
    channelIds = keysOfStored(db.prepare('SELECT id, name FROM channels ORDER BY id').all() as Named[]);
  }

  // Sensors: by name (and seq where names repeat).
  let sensorIds: Map<string, number>;
  if (plan.sensors) {
    const stored = db
      .prepare('SELECT id, name, enabled, managed_by FROM sensors ORDER BY id')
      .all() as (Named & {
      enabled: number;
    })[];
    const pairs = pairByName(stored, plan.sensors);
    const kept = new Set(pairs.values());
    const managed = new Set(stored.filter((s) => s.managed_by).map((s) => s.id));
    const remove = db.prepare('DELETE FROM sensors WHERE id = ?');
    for (const row of stored)
      if (!kept.has(row.id) && !managed.has(row.id)) {
        // Cascades to its results, rollups, incidents, channel links and window entries.
        remove.run(row.id);
        outcome.sensors.deleted.push(row.id);
      }
    const wasEnabled = new Map(stored.map((s) => [s.id, s.enabled === 1]));
    const update = db.prepare(
      `UPDATE sensors SET type = ?, target = ?, interval = ?, retries = ?, reminder_every = ?, group_name = ?,
         tags = ?, site_id = ?, enabled = ?, options = ?, sort_order = ?, sample = ?, parent_id = NULL,
         updated_at = ? WHERE id = ?`,
    );
    const reset = db.prepare(`UPDATE sensors SET status = ?, streak = 0 WHERE id = ?`);
    const insert = db.prepare(
      `INSERT INTO sensors (name, type, target, interval, retries, reminder_every, group_name, tags, site_id,
         enabled, options, sort_order, sample, managed_by, status, message, streak, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, '', 0, ?, ?)`,
    );
    sensorIds = new Map();
    plan.sensors.forEach((s, index) => {
      let siteId: number | null = null;
      if (s.site) {
        const found = siteIds.get(s.site);
        if (found === undefined)
          throw new InvalidInputError(`sensors row ${index} ("${s.name}"): site "${s.site}" does not exist`);
        siteId = found;
      }
      const values = [
        s.type,
        s.target,
        s.interval,
        s.retries,
        s.reminder_every,
        s.group,
        JSON.stringify(s.tags),
        siteId,
        s.enabled ? 1 : 0,
        JSON.stringify(s.options),
        s.sort_order,
        s.sample ? 1 : 0,
      ];
      const key = entryKey(s.name, s.seq);
      const id = pairs.get(key);
      if (id !== undefined && managed.has(id)) {
        sensorIds.set(key, id);
      } else if (id !== undefined) {
        update.run(...values, now, id);
        if (wasEnabled.get(id) !== s.enabled) reset.run(s.enabled ? 'unknown' : 'paused', id);
        outcome.sensors.updated.push(id);
        sensorIds.set(key, id);
      } else {
        const status = s.enabled ? 'unknown' : 'paused';
        const created = Number(insert.run(s.name, ...values, status, now, now).lastInsertRowid);
        outcome.sensors.created.push(created);
        sensorIds.set(key, created);
      }
    });
    const setParent = db.prepare('UPDATE sensors SET parent_id = ? WHERE id = ?');
    const unlink = db.prepare('DELETE FROM sensor_channels WHERE sensor_id = ?');
    const link = db.prepare('INSERT OR IGNORE INTO sensor_channels (sensor_id, channel_id) VALUES (?, ?)');
    plan.sensors.forEach((s, index) => {
      const id = sensorIds.get(entryKey(s.name, s.seq))!;
      if (managed.has(id)) return;
      if (s.parent) setParent.run(sensorIds.get(refKey(s.parent))!, id);
      unlink.run(id);
      for (const ref of s.channels) {
        const channelId = channelIds.get(refKey(ref));
        if (channelId === undefined)
          throw new InvalidInputError(
            `sensors row ${index} ("${s.name}"): channel ${refLabel(ref)} does not exist`,
          );
        link.run(id, channelId);
      }
    });
    counts.sensors = plan.sensors.length;
  } else {
    sensorIds = keysOfStored(db.prepare('SELECT id, name FROM sensors ORDER BY id').all() as Named[]);
  }

  // Accounts: by username, in any case.
  if (plan.accounts) {
    const stored = db.prepare('SELECT id, username FROM users').all() as { id: number; username: string }[];
    const wanted = new Set(plan.accounts.map((a) => a.username.toLowerCase()));
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
    for (const a of plan.accounts) {
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
    counts.accounts = plan.accounts.length;
  }

  const sensorIdOf = (ref: Parameters<typeof refKey>[0], where: string): number => {
    const id = sensorIds.get(refKey(ref));
    if (id === undefined) throw new InvalidInputError(`${where}: sensor ${refLabel(ref)} does not exist`);
    return id;
  };

  if (plan.ranges.incidents) {
    db.prepare('DELETE FROM incidents').run();
    const insert = db.prepare(
      `INSERT INTO incidents (sensor_id, started_at, resolved_at, cause, acknowledged, acknowledged_by,
         acknowledged_at, note, reconstructed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let n = 0;
    context.scan('incidents', (index, row) => {
      const i = readIncident(index, row);
      insert.run(
        sensorIdOf(i.sensor, `incidents row ${index}`),
        i.started_at,
        i.resolved_at,
        i.cause,
        i.acknowledged ? 1 : 0,
        i.acknowledged_by,
        i.acknowledged_at,
        i.note,
        i.reconstructed ? 1 : 0,
      );
      n++;
    });
    counts.incidents = n;
  }

  for (const tier of ['rollup_hourly', 'rollup_daily'] as const) {
    if (!plan.ranges[tier]) continue;
    db.prepare(`DELETE FROM ${tier}`).run();
    const insert = db.prepare(
      `INSERT INTO ${tier} (sensor_id, bucket_start, count, up, latency_sum, latency_min, latency_max)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    let n = 0;
    context.scan(tier, (index, row) => {
      const sensorId = sensorIdOf(readRollupBlock(tier, index, row).sensor, `${tier} row ${index}`);
      n += readRollupBlock(tier, index, row, (start, count, up, sum, min, max) =>
        insert.run(sensorId, start, count, up, sum, min, max),
      ).buckets;
    });
    counts[tier] = n;
  }

  return outcome;
}
