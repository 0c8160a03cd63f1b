import { STATUS_PAGE_LIMITS, type BackupRef, type BackupSite, type BackupTable } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';
import {
  checkHeaderField,
  entryKey,
  isBookkeepingSetting,
  isTable,
  refKey,
  refLabel,
  REQUIRED_HEADER,
  ROW_LIMITS,
} from './backup-format';
import {
  type AccountRow,
  type ChannelRow,
  type IncidentRow,
  readAccount,
  readChannel,
  readIncident,
  readSensor,
  readSite,
  type SensorRow,
} from './backup-row-reader';
import { readRollupBlock } from './rollup-blocks';
import type { ScanHandler } from './json-table-scanner';
import { readStatusPage, type StatusPageRow } from './status-page-format';

/** Where a large table's array lies in the received document, to be read again while writing. */
export interface TableRange {
  start: number;
  end: number;
  rows: number;
}

/** Checks that need the application (probe and channel catalogues); they throw InvalidInputError. */
export interface RowChecks {
  channel(row: ChannelRow): void;
  sensor(row: SensorRow): void;
}

type LargeTable = 'incidents' | 'rollup_hourly' | 'rollup_daily';
const LARGE_TABLES: readonly string[] = ['incidents', 'rollup_hourly', 'rollup_daily'];

const API_KEY = /^mk_[A-Za-z0-9_-]{20,200}$/;

/**
 * The first reading of a restore document: checks the header before any table, checks every row,
 * keeps the small tables, and for the large ones only where they are and which sensors they name.
 * Nothing is written while this runs.
 */
export class RestorePlan implements ScanHandler {
  private readonly header = new Set<string>();
  settings?: Map<string, unknown>;
  /** undefined: the document does not name the API key; null: it says there is none. */
  apiKey?: string | null;
  sites?: BackupSite[];
  channels?: ChannelRow[];
  sensors?: SensorRow[];
  statusPages?: StatusPageRow[];
  accounts?: AccountRow[];
  readonly ranges: Partial<Record<LargeTable, TableRange>> = {};
  /** Rows (buckets for rollups) per large table. */
  readonly largeCounts: Partial<Record<LargeTable, number>> = {};
  /** Sensors the large tables name, with the first place each is named (for messages). */
  readonly sensorRefs = new Map<string, { ref: BackupRef; where: string }>();
  private readonly openIncidents = new Set<string>();
  private readonly spans = new Map<string, [number, number, string][]>();

  constructor(private readonly checks: RowChecks) {}

  /** The tables the document names, in the order a backup writes them. */
  tables(): BackupTable[] {
    const named: Record<BackupTable, boolean> = {
      settings: this.settings !== undefined,
      api_key: this.apiKey !== undefined,
      sites: this.sites !== undefined,
      channels: this.channels !== undefined,
      sensors: this.sensors !== undefined,
      status_pages: this.statusPages !== undefined,
      accounts: this.accounts !== undefined,
      incidents: this.ranges.incidents !== undefined,
      rollup_hourly: this.ranges.rollup_hourly !== undefined,
      rollup_daily: this.ranges.rollup_daily !== undefined,
    };
    return (Object.keys(named) as BackupTable[]).filter((t) => named[t]);
  }

  value(key: string, value: unknown): void {
    if (!isTable(key)) {
      checkHeaderField(key, value);
      this.header.add(key);
      return;
    }
    this.requireHeader();
    if (key === 'settings') return this.readSettings(value);
    if (key === 'api_key') {
      if (value !== null && (typeof value !== 'string' || !API_KEY.test(value)))
        throw new InvalidInputError('api_key must be an API key (mk_…) or null');
      this.apiKey = value;
      return;
    }
    throw new InvalidInputError(`${key} must be an array`);
  }

  tableStart(key: string, offset: number): void {
    if (!isTable(key)) throw new InvalidInputError(`unknown key "${key}" in the document`);
    this.requireHeader();
    if (key === 'settings') throw new InvalidInputError('settings must be an object of keys and values');
    if (key === 'api_key') throw new InvalidInputError('api_key must be an API key (mk_…) or null');
    if (key === 'sites') this.sites = [];
    if (key === 'channels') this.channels = [];
    if (key === 'sensors') this.sensors = [];
    if (key === 'accounts') this.accounts = [];
    if (key === 'status_pages') this.statusPages = [];
    if (LARGE_TABLES.includes(key)) {
      this.ranges[key as LargeTable] = { start: offset, end: -1, rows: 0 };
      this.largeCounts[key as LargeTable] = 0;
    }
  }

  row(key: string, index: number, value: unknown): void {
    switch (key) {
      case 'sites':
        this.limit('sites', index);
        this.sites!.push(readSite(index, value));
        return;
      case 'channels': {
        this.limit('channels', index);
        const channel = readChannel(index, value);
        this.check(`channels row ${index} ("${channel.name}")`, () => this.checks.channel(channel));
        this.channels!.push(channel);
        return;
      }
      case 'sensors': {
        this.limit('sensors', index);
        const sensor = readSensor(index, value);
        this.check(`sensors row ${index} ("${sensor.name}")`, () => this.checks.sensor(sensor));
        this.sensors!.push(sensor);
        return;
      }
      case 'status_pages': {
        if (index >= STATUS_PAGE_LIMITS.pages)
          throw new InvalidInputError(`status_pages: more than ${STATUS_PAGE_LIMITS.pages} rows`);
        const page = readStatusPage(index, value);
        page.sections.forEach((s) =>
          s.sensors.forEach((ref) => this.noteSensor(ref, `status_pages row ${index} ("${page.slug}")`)),
        );
        this.statusPages!.push(page);
        return;
      }
      case 'accounts':
        this.limit('accounts', index);
        this.accounts!.push(readAccount(index, value));
        return;
      case 'incidents':
        return this.noteIncident(index, readIncident(index, value));
      case 'rollup_hourly':
      case 'rollup_daily': {
        const block = readRollupBlock(key, index, value);
        const where = `${key} row ${index}`;
        const sensor = refKey(block.sensor);
        this.noteSensor(block.sensor, where);
        const spans = this.spans.get(`${key}\u0000${sensor}`) ?? [];
        spans.push([block.first, block.last, where]);
        this.spans.set(`${key}\u0000${sensor}`, spans);
        this.largeCounts[key] = (this.largeCounts[key] ?? 0) + block.buckets;
        return;
      }
    }
  }

  tableEnd(key: string, rows: number, endOffset: number): void {
    const range = this.ranges[key as LargeTable];
    if (range) Object.assign(range, { end: endOffset, rows });
  }

  /** Checks across rows and tables, once the whole document has been read. */
  finish(): void {
    this.requireHeader();
    if (this.sites) unique(this.sites, (s) => s.name, 'sites', 'name');
    if (this.channels) unique(this.channels, (c) => entryKey(c.name, c.seq), 'channels', 'name and seq');
    if (this.sensors) {
      unique(this.sensors, (s) => entryKey(s.name, s.seq), 'sensors', 'name and seq');
      const sites = this.sites && new Set(this.sites.map((s) => s.name));
      const channels = this.channels && new Set(this.channels.map((c) => entryKey(c.name, c.seq)));
      const sensors = new Map(this.sensors.map((s) => [entryKey(s.name, s.seq), s]));
      this.sensors.forEach((s, i) => {
        const label = `sensors row ${i} ("${s.name}")`;
        if (s.site && sites && !sites.has(s.site))
          throw new InvalidInputError(`${label}: site "${s.site}" is not in the document's sites`);
        if (channels)
          for (const ref of s.channels)
            if (!channels.has(refKey(ref)))
              throw new InvalidInputError(
                `${label}: channel ${refLabel(ref)} is not in the document's channels`,
              );
        if (s.parent && !sensors.has(refKey(s.parent)))
          throw new InvalidInputError(
            `${label}: parent ${refLabel(s.parent)} is not in the document's sensors`,
          );
        // A chain of parents must end: no sensor may be its own ancestor.
        let cursor: SensorRow | undefined = s;
        for (let hops = 0; cursor?.parent; hops++) {
          if (hops > sensors.size)
            throw new InvalidInputError(
              `${label}: the parents form a loop (a sensor cannot be its own ancestor)`,
            );
          cursor = sensors.get(refKey(cursor.parent));
        }
      });
      for (const { ref, where } of this.sensorRefs.values())
        if (!sensors.has(refKey(ref)))
          throw new InvalidInputError(`${where}: sensor ${refLabel(ref)} is not in the document's sensors`);
    }
    if (this.statusPages) unique(this.statusPages, (p) => p.slug, 'status_pages', 'slug');
    if (this.accounts) {
      unique(this.accounts, (a) => a.username.toLowerCase(), 'accounts', 'username (in any case)');
      if (!this.accounts.some((a) => a.role === 'admin' && !a.disabled))
        throw new InvalidInputError(
          'accounts: the document has no enabled administrator; restoring it would lock every account out',
        );
    }
    for (const spans of this.spans.values()) {
      spans.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++)
        if (spans[i][0] <= spans[i - 1][1])
          throw new InvalidInputError(`${spans[i][2]}: overlaps ${spans[i - 1][2]} of the same sensor`);
    }
  }

  private requireHeader(): void {
    for (const key of REQUIRED_HEADER)
      if (!this.header.has(key))
        throw new InvalidInputError(
          `not a backup of this service: the document must begin with ${REQUIRED_HEADER.join(', ')}`,
        );
  }

  private readSettings(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InvalidInputError('settings must be an object of keys and values');
    const entries = Object.entries(value);
    if (entries.length > ROW_LIMITS.settings)
      throw new InvalidInputError(`settings: at most ${ROW_LIMITS.settings} keys`);
    for (const [key] of entries) {
      if (key === '' || key.length > 200)
        throw new InvalidInputError('settings: keys are 1 to 200 characters');
      if (isBookkeepingSetting(key))
        throw new InvalidInputError(
          `settings: "${key}" is kept by the installation itself and cannot be restored`,
        );
    }
    this.settings = new Map(entries);
  }

  private noteIncident(index: number, incident: IncidentRow): void {
    const where = `incidents row ${index}`;
    this.noteSensor(incident.sensor, where);
    if (incident.resolved_at === null) {
      const key = refKey(incident.sensor);
      if (this.openIncidents.has(key))
        throw new InvalidInputError(
          `${where}: sensor ${refLabel(incident.sensor)} has a second open incident`,
        );
      this.openIncidents.add(key);
    }
    this.largeCounts.incidents = (this.largeCounts.incidents ?? 0) + 1;
  }

  private noteSensor(ref: BackupRef, where: string): void {
    const key = refKey(ref);
    if (!this.sensorRefs.has(key)) this.sensorRefs.set(key, { ref, where });
  }

  private limit(table: keyof typeof ROW_LIMITS, index: number): void {
    if (index >= ROW_LIMITS[table])
      throw new InvalidInputError(`${table}: more than ${ROW_LIMITS[table]} rows`);
  }

  private check(label: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      if (error instanceof InvalidInputError) throw new InvalidInputError(`${label}: ${error.message}`);
      throw error;
    }
  }
}

function unique<T>(rows: T[], keyOf: (row: T) => string, table: string, what: string): void {
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const key = keyOf(row);
    if (seen.has(key)) throw new InvalidInputError(`${table} row ${i}: another row has the same ${what}`);
    seen.add(key);
  });
}
