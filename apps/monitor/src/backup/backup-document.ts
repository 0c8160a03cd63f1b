import type {
  BackupAccount,
  BackupChannel,
  BackupDays,
  BackupIncident,
  BackupScope,
  BackupSensor,
  BackupSite,
  BackupStatusPage,
  BackupTable,
} from '@monitor/contracts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION } from '@monitor/contracts';
import { exportChannels } from '../channels/channel-rows.sql';
import type { SqlExecutor } from '../core/database/sql-client';
import { parseJsonOr } from '../core/database/stored-values';
import { rollupReader } from '../history/history.sql';
import { exportIncidents } from '../incidents/incident-rows.sql';
import { exportSensorChannels, exportSensors } from '../sensors/sensor-rows.sql';
import { exportSettings } from '../settings/settings-rows.sql';
import { exportSites } from '../sites/site-rows.sql';
import { exportStatusPages } from '../status-pages/status-page-rows.sql';
import { exportAccounts } from '../users/user-rows.sql';
import {
  DAY_MS,
  historyCutoffs,
  HOUR_MS,
  isBookkeepingSetting,
  isoOrNull,
  refOf,
  SCHEMA_VERSION,
  sequenceByName,
} from './backup-format';
import { BlockEncoder } from './rollup-blocks';

type Row = Record<string, unknown>;

/** The backup document, piece by piece, read through `tx` (one snapshot). Nest-free. */
export async function* backupDocument(
  tx: SqlExecutor,
  options: {
    scope: BackupScope;
    days: BackupDays;
    now: number;
    apiKey: string | null;
    counts: Partial<Record<BackupTable, number>>;
  },
): AsyncGenerator<string> {
  const { scope, days, now, counts } = options;
  const header: Row = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    schema_version: SCHEMA_VERSION,
    created_at: new Date(now).toISOString(),
    scope,
    ...(scope === 'history' ? { days: days === 'all' ? 'all' : Number(days) } : {}),
  };
  yield JSON.stringify(header).slice(0, -1);

  const settings: Row = {};
  for (const { key, value } of await exportSettings(tx)) {
    if (!isBookkeepingSetting(key)) settings[key] = parseJsonOr(value, value);
  }
  counts.settings = Object.keys(settings).length;
  yield `,\n"settings":${JSON.stringify(settings)}`;
  counts.api_key = options.apiKey === null ? 0 : 1;
  yield `,\n"api_key":${JSON.stringify(options.apiKey)}`;

  // Sites
  const sites = await exportSites(tx);
  const siteNames = new Map(sites.map((s) => [s.id, s.name]));
  yield* table(
    'sites',
    sites,
    (s): BackupSite => ({ name: s.name, kind: s.kind, lat: s.lat, lon: s.lon, sample: s.sample }),
    counts,
  );

  // Channels
  const channels = await exportChannels(tx);
  const channelSeq = sequenceByName(channels, (c) => c.name);
  const channelRefs = new Map(channels.map((c) => [c.id, refOf(c.name, channelSeq.get(c)!)]));
  yield* table(
    'channels',
    channels,
    (c): BackupChannel => ({
      name: c.name,
      ...(channelSeq.get(c)! > 1 ? { seq: channelSeq.get(c)! } : {}),
      type: c.type,
      config: c.config,
      enabled: c.enabled,
      title_template: c.title_template,
      body_template: c.body_template,
    }),
    counts,
  );

  // Sensors
  const sensors = await exportSensors(tx);
  const sensorSeq = sequenceByName(sensors, (s) => s.name);
  const sensorRefs = new Map(sensors.map((s) => [s.id, refOf(s.name, sensorSeq.get(s)!)]));
  const links = await exportSensorChannels(tx);
  const inOrder = [...sensors].sort((a, b) => a.sort_order - b.sort_order || a.id - b.id);
  yield* table(
    'sensors',
    inOrder,
    (s): BackupSensor => ({
      name: s.name,
      ...(sensorSeq.get(s)! > 1 ? { seq: sensorSeq.get(s)! } : {}),
      type: s.type,
      target: s.target,
      interval: s.interval,
      retries: s.retries,
      reminder_every: s.reminder_every,
      group: s.group,
      tags: s.tags,
      site: s.siteId === null ? '' : (siteNames.get(s.siteId) ?? ''),
      parent: s.parentId === null ? null : (sensorRefs.get(s.parentId) ?? null),
      enabled: s.enabled,
      options: s.options,
      channels: (links.get(s.id) ?? []).map((id) => channelRefs.get(id)!).filter(Boolean),
      sort_order: s.sort_order,
      sample: s.sample,
    }),
    counts,
  );

  // Status pages, their sensors by reference
  yield* table(
    'status_pages',
    await exportStatusPages(tx),
    (p): BackupStatusPage => ({
      slug: p.slug,
      title: p.title,
      description: p.description,
      published: p.published,
      show_uptime: p.show_uptime,
      history_days: p.history_days as BackupStatusPage['history_days'],
      footer: p.footer,
      language: p.language,
      sections: p.sections.map((s) => ({
        title: s.title,
        sensors: s.sensors.map((id) => sensorRefs.get(id)!).filter(Boolean),
      })),
      announcements: p.announcements.map((a) => ({
        title: a.title,
        body: a.body,
        severity: a.severity,
        created_at: new Date(a.created_at).toISOString(),
      })),
    }),
    counts,
  );

  // Accounts, each with its recovery codes
  yield* table(
    'accounts',
    await exportAccounts(tx),
    (u): BackupAccount => ({
      ...u,
      last_login_at: isoOrNull(u.last_login_at),
      created_at: new Date(u.created_at).toISOString(),
      recovery_codes: u.recovery_codes.map((c) => ({
        code_hash: c.code_hash,
        used_at: isoOrNull(c.used_at),
      })),
    }),
    counts,
  );

  if (scope === 'history') {
    const cutoffs = historyCutoffs(days, now);
    yield* table(
      'incidents',
      exportIncidents(tx, cutoffs ? cutoffs.incidents : Number.MIN_SAFE_INTEGER),
      (i): BackupIncident => ({
        sensor: sensorRefs.get(i.sensorId)!,
        started_at: new Date(i.started_at).toISOString(),
        resolved_at: isoOrNull(i.resolved_at),
        cause: i.cause,
        acknowledged: i.acknowledged,
        acknowledged_by: i.acknowledged_by,
        acknowledged_at: isoOrNull(i.acknowledged_at),
        note: i.note,
        reconstructed: i.reconstructed,
      }),
      counts,
    );
    for (const [tier, stepMs, cutoff] of [
      ['rollup_hourly', HOUR_MS, cutoffs?.hourly],
      ['rollup_daily', DAY_MS, cutoffs?.daily],
    ] as const) {
      const read = rollupReader(tx, tier);
      let buckets = 0;
      let first = true;
      yield `,\n"${tier}":[`;
      for (const sensor of sensors) {
        // Rows are read one at a time and each block goes out as soon as it is complete, so what
        // is held at once is one block (a month of hours), not a sensor's whole history.
        const ref = sensorRefs.get(sensor.id)!;
        const out: string[] = [];
        const encoder = new BlockEncoder(stepMs, (block) => {
          out.push(`${first ? '' : ','}\n${JSON.stringify({ sensor: ref, ...block })}`);
          first = false;
        });
        for (const row of await read(sensor.id, cutoff ?? Number.MIN_SAFE_INTEGER)) {
          encoder.push(
            row.bucket_start,
            row.count,
            row.up,
            row.latency_sum,
            row.latency_min,
            row.latency_max,
          );
          buckets++;
          if (out.length > 0) yield out.splice(0).join('');
        }
        encoder.flush();
        if (out.length > 0) yield out.splice(0).join('');
      }
      yield '\n]';
      counts[tier] = buckets;
    }
  }
  yield '}\n';
}

async function* table<R, T>(
  name: BackupTable,
  rows: Iterable<R> | AsyncIterable<R>,
  toEntry: (row: R) => T,
  counts: Partial<Record<BackupTable, number>>,
): AsyncGenerator<string> {
  let n = 0;
  yield `,\n"${name}":[`;
  for await (const row of rows) {
    yield `${n === 0 ? '' : ','}\n${JSON.stringify(toEntry(row))}`;
    n++;
  }
  yield '\n]';
  counts[name] = n;
}
