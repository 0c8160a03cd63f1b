import type { BackupTable } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import {
  deleteChannel,
  insertChannel,
  storedChannelNames,
  updateChannel,
} from '../channels/channel-rows.sql';
import type { SqlExecutor } from '../core/database/sql-client';
import { replaceRollups, type SensorRollupBucket } from '../history/history.sql';
import { replaceIncidents } from '../incidents/incident-rows.sql';
import {
  deleteSensor,
  insertSensor,
  setChannelLinks,
  setParent,
  storedSensorNames,
  updateSensor,
} from '../sensors/sensor-rows.sql';
import { importSecrets, importSettings } from '../settings/settings-rows.sql';
import { importSites, siteIdsByName } from '../sites/site-rows.sql';
import { importStatusPages, type StatusPageChange } from '../status-pages/status-page-rows.sql';
import { importAccounts } from '../users/user-rows.sql';
import { BOOKKEEPING_PREFIX, entryKey, refKey, refLabel } from './backup-format';
import { readIncident } from './backup-row-reader';
import { readRollupBlock } from './rollup-blocks';
import type { RestorePlan } from './restore-plan';

/** What applyRestore reads of a checked plan: plain data, so it can be sent to a worker thread. */
export type PlanData = Pick<
  RestorePlan,
  'settings' | 'apiKey' | 'sites' | 'channels' | 'sensors' | 'statusPages' | 'accounts' | 'ranges'
>;

/** What changed, for the scheduler and the live events afterwards. */
export interface RestoreOutcome {
  counts: Partial<Record<BackupTable, number>>;
  sensors: { created: number[]; updated: number[]; deleted: number[] };
  channels: { created: number[]; updated: number[]; deleted: number[] };
  statusPages: StatusPageChange[];
}

export interface ApplyContext {
  now: number;
  /** The API key's stored form (hash and sealed copy), when the document gives one. */
  apiKeyRows: { hash: string; sealed: string } | null;
  /** Reads one large table's rows again from the received document, a batch at a time. */
  scan(table: ScannedTable, onRows: (rows: ScannedRow[]) => Promise<void>): Promise<void>;
}

export type ScannedTable = 'incidents' | 'rollup_hourly' | 'rollup_daily';

/** A row of a large table and its index in it. */
export interface ScannedRow {
  index: number;
  row: unknown;
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
 * raw results). Each table is written through its feature's row functions; this decides the
 * order and the matching. Throws to roll everything back. One SQL text for both backends.
 */
export async function applyRestore(
  tx: SqlExecutor,
  plan: PlanData,
  context: ApplyContext,
): Promise<RestoreOutcome> {
  const { now } = context;
  const outcome: RestoreOutcome = {
    counts: {},
    sensors: { created: [], updated: [], deleted: [] },
    channels: { created: [], updated: [], deleted: [] },
    statusPages: [],
  };
  const counts = outcome.counts;

  if (plan.settings) {
    // The history's own bookkeeping (its watermarks) stays: it describes this database's rows.
    counts.settings = await importSettings(tx, plan.settings, BOOKKEEPING_PREFIX, now);
  }

  if (plan.apiKey !== undefined) {
    if (plan.apiKey !== null && !context.apiKeyRows)
      throw new Error('the API key was not prepared for storing');
    const rows = plan.apiKey === null ? null : context.apiKeyRows!;
    await importSecrets(
      tx,
      [API_KEY_ROWS.hash, API_KEY_ROWS.sealed],
      rows && { [API_KEY_ROWS.hash]: rows.hash, [API_KEY_ROWS.sealed]: rows.sealed },
      now,
    );
    counts.api_key = plan.apiKey === null ? 0 : 1;
  }

  // Sites: by name (unique).
  if (plan.sites) {
    await importSites(tx, plan.sites, now);
    counts.sites = plan.sites.length;
  }
  const siteIds = await siteIdsByName(tx);

  // Channels: by name (and seq where names repeat).
  let channelIds: Map<string, number>;
  if (plan.channels) {
    const stored = await storedChannelNames(tx);
    const pairs = pairByName(stored, plan.channels);
    const kept = new Set(pairs.values());
    const managed = new Set(stored.filter((c) => c.managed_by).map((c) => c.id));
    for (const row of stored)
      if (!kept.has(row.id) && !managed.has(row.id)) {
        // Cascades to the sensors' links to it.
        await deleteChannel(tx, row.id);
        outcome.channels.deleted.push(row.id);
      }
    channelIds = new Map();
    for (const c of plan.channels) {
      const key = entryKey(c.name, c.seq);
      let id = pairs.get(key);
      if (id !== undefined) {
        if (!managed.has(id)) {
          await updateChannel(tx, id, c, now);
          outcome.channels.updated.push(id);
        }
      } else {
        id = await insertChannel(tx, c, now);
        outcome.channels.created.push(id);
      }
      channelIds.set(key, id);
    }
    counts.channels = plan.channels.length;
  } else {
    channelIds = keysOfStored(await storedChannelNames(tx));
  }

  // Sensors: by name (and seq where names repeat).
  let sensorIds: Map<string, number>;
  if (plan.sensors) {
    const stored = await storedSensorNames(tx);
    const pairs = pairByName(stored, plan.sensors);
    const kept = new Set(pairs.values());
    const managed = new Set(stored.filter((s) => s.managed_by).map((s) => s.id));
    for (const row of stored)
      if (!kept.has(row.id) && !managed.has(row.id)) {
        // Cascades to its results, rollups, incidents, channel links and window entries.
        await deleteSensor(tx, row.id);
        outcome.sensors.deleted.push(row.id);
      }
    const wasEnabled = new Map(stored.map((s) => [s.id, s.enabled]));
    sensorIds = new Map();
    for (const [index, s] of plan.sensors.entries()) {
      let siteId: number | null = null;
      if (s.site) {
        const found = siteIds.get(s.site);
        if (found === undefined)
          throw new InvalidInputError(`sensors row ${index} ("${s.name}"): site "${s.site}" does not exist`);
        siteId = found;
      }
      const key = entryKey(s.name, s.seq);
      const id = pairs.get(key);
      if (id !== undefined && managed.has(id)) {
        sensorIds.set(key, id);
      } else if (id !== undefined) {
        await updateSensor(tx, id, s, siteId, wasEnabled.get(id)!, now);
        outcome.sensors.updated.push(id);
        sensorIds.set(key, id);
      } else {
        const created = await insertSensor(tx, s, siteId, now);
        outcome.sensors.created.push(created);
        sensorIds.set(key, created);
      }
    }
    for (const [index, s] of plan.sensors.entries()) {
      const id = sensorIds.get(entryKey(s.name, s.seq))!;
      if (managed.has(id)) continue;
      if (s.parent) await setParent(tx, id, sensorIds.get(refKey(s.parent))!);
      const links = s.channels.map((ref) => {
        const channelId = channelIds.get(refKey(ref));
        if (channelId === undefined)
          throw new InvalidInputError(
            `sensors row ${index} ("${s.name}"): channel ${refLabel(ref)} does not exist`,
          );
        return channelId;
      });
      await setChannelLinks(tx, id, links);
    }
    counts.sensors = plan.sensors.length;
  } else {
    sensorIds = keysOfStored(await storedSensorNames(tx));
  }

  const sensorIdOf = (ref: Parameters<typeof refKey>[0], where: string): number => {
    const id = sensorIds.get(refKey(ref));
    if (id === undefined) throw new InvalidInputError(`${where}: sensor ${refLabel(ref)} does not exist`);
    return id;
  };

  // Status pages: by slug (unique); their sensors by reference, like every other row.
  if (plan.statusPages) {
    const pages = plan.statusPages.map((page, index) => ({
      ...page,
      sections: page.sections.map((section) => ({
        title: section.title,
        sensors: section.sensors.map((ref) => sensorIdOf(ref, `status_pages row ${index} ("${page.slug}")`)),
      })),
    }));
    outcome.statusPages = await importStatusPages(tx, pages, now);
    counts.status_pages = pages.length;
  }

  // Accounts: by username, in any case.
  if (plan.accounts) {
    await importAccounts(tx, plan.accounts, now);
    counts.accounts = plan.accounts.length;
  }

  if (plan.ranges.incidents) {
    const insert = await replaceIncidents(tx);
    let n = 0;
    await context.scan('incidents', async (rows) => {
      await insert(
        rows.map(({ index, row }) => {
          const i = readIncident(index, row);
          return { ...i, sensorId: sensorIdOf(i.sensor, `incidents row ${index}`) };
        }),
      );
      n += rows.length;
    });
    counts.incidents = n;
  }

  for (const tier of ['rollup_hourly', 'rollup_daily'] as const) {
    if (!plan.ranges[tier]) continue;
    const insert = await replaceRollups(tx, tier);
    let n = 0;
    await context.scan(tier, async (rows) => {
      const buckets: SensorRollupBucket[] = [];
      for (const { index, row } of rows) {
        const sensorId = sensorIdOf(readRollupBlock(tier, index, row).sensor, `${tier} row ${index}`);
        readRollupBlock(tier, index, row, (start, count, up, sum, min, max) =>
          buckets.push([sensorId, start, count, up, sum, min, max]),
        );
      }
      await insert(buckets);
      n += buckets.length;
    });
    counts[tier] = n;
  }

  return outcome;
}
