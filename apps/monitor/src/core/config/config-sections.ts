import {
  STATUS_PAGE_HISTORY_DAYS,
  STATUS_PAGE_LANGUAGES,
  STATUS_PAGE_LIMITS,
  STATUS_PAGE_SLUG_PATTERN,
} from '@monitor/contracts';
import {
  CHANNEL_DEFAULTS,
  CHANNEL_FIELDS,
  type ChannelType,
  type FieldRule,
  normalizeTags,
  SENSOR_DEFAULTS,
  SENSOR_FIELDS,
  targetRequired,
  type SensorType,
} from '@monitor/domain';
import {
  ChannelDeclaration,
  ConfigError,
  keyLabel,
  MaintenanceDeclaration,
  SensorDeclaration,
  SITE_KINDS,
  SiteDeclaration,
  StatusPageDeclaration,
} from './monitor-config';

type Item = Record<string, unknown>;

const fail = (key: string, problem: string): never => {
  throw new ConfigError(`invalid configuration: ${key}: ${problem}`);
};

const describe = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/** Reads the fields of one declared item, refusing keys that are not allowed and values of the wrong type. */
class ItemReader {
  constructor(
    private readonly item: Item,
    private readonly path: string,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(item)) {
      if (!allowed.includes(key)) fail(`${path}.${keyLabel(key)}`, 'unknown key');
    }
  }

  /** A field's value as written. */
  raw(name: string): unknown {
    return this.item[name];
  }

  key(name: string): string {
    return `${this.path}.${name}`;
  }

  refuse(name: string, problem: string): never {
    return fail(this.key(name), problem);
  }

  name(): string {
    const value = this.item.name;
    if (typeof value !== 'string' || value.trim() === '')
      fail(this.key('name'), 'required, a non-empty string');
    return (value as string).trim();
  }

  /** A field of the sensor or channel definition: absent or null takes the default. */
  follows<T>(name: string, rule: FieldRule, fallback: T): T {
    const value = this.item[name];
    if (value === undefined || value === null) return fallback;
    const problem = rule.check(value);
    if (problem !== null) fail(this.key(name), `${problem} (got ${describe(value)})`);
    return value as T;
  }

  /** A required text field of a definition, trimmed; anything but a non-blank string is "required". */
  requiredText(name: string, rule: FieldRule): string {
    const value = this.item[name];
    if (typeof value !== 'string' || value.trim() === '')
      fail(this.key(name), 'required, a non-empty string');
    return this.follows(name, rule, '').trim();
  }

  /** A required field of a definition with no text to trim (a type). */
  required<T>(name: string, rule: FieldRule): T {
    const value = this.item[name];
    const problem = rule.check(value);
    if (problem !== null) fail(this.key(name), `${problem} (got ${describe(value)})`);
    return value as T;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.item[name];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') fail(this.key(name), `must be true or false (got ${describe(value)})`);
    return value as boolean;
  }

  /** A list of mappings, each read by `read` with the allowed keys it names. */
  mappings<T>(name: string, read: (reader: ItemReader) => T, allowed: readonly string[]): T[] {
    const value = this.item[name];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) fail(this.key(name), 'must be a list');
    return (value as unknown[]).map((entry, index) => {
      const path = `${this.key(name)}[${index}]`;
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
        fail(path, 'must be a mapping');
      return read(new ItemReader(entry as Item, path, allowed));
    });
  }

  string(name: string, fallback = ''): string {
    const value = this.item[name];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string') fail(this.key(name), `must be a string (got ${describe(value)})`);
    return value as string;
  }

  oneOf<T extends string>(name: string, choices: readonly T[], fallback?: T): T {
    const value = this.item[name] ?? fallback;
    if (typeof value !== 'string' || !choices.includes(value as T)) {
      fail(this.key(name), `must be one of ${choices.join(', ')} (got ${describe(value)})`);
    }
    return value as T;
  }

  coordinate(name: string, limit: number): number | null {
    const value = this.item[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
      fail(this.key(name), `must be a number from -${limit} to ${limit} (got ${describe(value)})`);
    }
    return value as number;
  }

  object(name: string): Record<string, unknown> {
    const value = this.item[name];
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) fail(this.key(name), 'must be a mapping');
    return { ...(value as Record<string, unknown>) };
  }

  strings(name: string): string[] {
    const value = this.item[name];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry.trim() === '')) {
      fail(this.key(name), 'must be a list of non-empty strings');
    }
    return (value as string[]).map((entry) => entry.trim());
  }

  timestamp(name: string): string {
    const value = this.item[name];
    const text = value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : value;
    const millis = typeof text === 'string' ? parseRfc3339(text) : NaN;
    if (Number.isNaN(millis)) {
      fail(this.key(name), `required, an RFC 3339 timestamp (got ${describe(value)})`);
    }
    return new Date(millis).toISOString();
  }
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Milliseconds since the epoch for an RFC 3339 date-time (offset required, seconds required), or NaN.
 * Date.parse alone is too lenient: it reads a missing offset as local time and rolls 2023-02-29 into March.
 */
function parseRfc3339(text: string): number {
  const match = RFC_3339.exec(text);
  if (!match) return NaN;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHour, offsetMinute] = [match[9], match[10]].map((part) => Number(part ?? 0));
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (monthDays === undefined || day < 1 || day > monthDays) return NaN;
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return NaN;
  return Date.parse(text.toUpperCase());
}

function readList<T>(
  section: string,
  raw: unknown,
  readItem: (reader: ItemReaderFactory) => T,
  identity: 'name' | 'slug' = 'name',
): T[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) fail(section, 'must be a list');
  const seen = new Set<string>();
  return (raw as unknown[]).map((item, index) => {
    const path = `${section}[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail(path, 'must be a mapping');
    const result = readItem((allowed) => new ItemReader(item as Item, path, allowed));
    const name = (result as Record<string, string>)[identity];
    if (seen.has(name)) fail(`${path}.${identity}`, `duplicate ${identity} ${describe(name)} in ${section}`);
    seen.add(name);
    return result;
  });
}

type ItemReaderFactory = (allowed: readonly string[]) => ItemReader;

export function readSites(raw: unknown): SiteDeclaration[] {
  return readList('sites', raw, (open) => {
    const r = open(['name', 'kind', 'lat', 'lon']);
    const name = r.name();
    const kindRaw = r.string('kind');
    const kind = kindRaw === '' ? 'local' : r.oneOf('kind', SITE_KINDS);
    const lat = r.coordinate('lat', 90);
    const lon = r.coordinate('lon', 180);
    if ((lat === null) !== (lon === null))
      r.refuse(lat === null ? 'lat' : 'lon', 'lat and lon must be given together');
    return { name, kind, lat, lon };
  });
}

export function readChannels(raw: unknown): ChannelDeclaration[] {
  return readList('channels', raw, (open) => {
    const r = open(Object.keys(CHANNEL_FIELDS));
    return {
      name: r.requiredText('name', CHANNEL_FIELDS.name),
      type: r.required<ChannelType>('type', CHANNEL_FIELDS.type),
      config: r.object('config'),
      enabled: r.follows('enabled', CHANNEL_FIELDS.enabled, CHANNEL_DEFAULTS.enabled),
      title_template: r.follows(
        'title_template',
        CHANNEL_FIELDS.title_template,
        CHANNEL_DEFAULTS.title_template,
      ),
      body_template: r.follows('body_template', CHANNEL_FIELDS.body_template, CHANNEL_DEFAULTS.body_template),
    };
  });
}

export function readSensors(raw: unknown): SensorDeclaration[] {
  return readList('sensors', raw, (open) => {
    const r = open(Object.keys(SENSOR_FIELDS));
    const name = r.requiredText('name', SENSOR_FIELDS.name);
    const type = r.required<SensorType>('type', SENSOR_FIELDS.type);
    const target = targetRequired(type)
      ? r.requiredText('target', SENSOR_FIELDS.target)
      : r.follows('target', SENSOR_FIELDS.target, '').trim();
    return {
      name,
      type,
      target,
      interval: r.follows('interval', SENSOR_FIELDS.interval, SENSOR_DEFAULTS.interval),
      retries: r.follows('retries', SENSOR_FIELDS.retries, SENSOR_DEFAULTS.retries),
      reminder_every: r.follows(
        'reminder_every',
        SENSOR_FIELDS.reminder_every,
        SENSOR_DEFAULTS.reminder_every,
      ),
      group: r.follows('group', SENSOR_FIELDS.group, SENSOR_DEFAULTS.group).trim(),
      tags: normalizeTags(r.follows('tags', SENSOR_FIELDS.tags, SENSOR_DEFAULTS.tags)),
      site: r.follows('site', SENSOR_FIELDS.site, SENSOR_DEFAULTS.site).trim(),
      enabled: r.follows('enabled', SENSOR_FIELDS.enabled, SENSOR_DEFAULTS.enabled),
      options: r.object('options'),
      channels: r.strings('channels'),
    };
  });
}

export function readMaintenance(raw: unknown): MaintenanceDeclaration[] {
  return readList('maintenance', raw, (open) => {
    const r = open(['name', 'starts_at', 'ends_at', 'sensors']);
    const window = {
      name: r.name(),
      starts_at: r.timestamp('starts_at'),
      ends_at: r.timestamp('ends_at'),
      sensors: r.strings('sensors'),
    };
    if (window.starts_at >= window.ends_at) r.refuse('ends_at', 'must be after starts_at');
    return window;
  });
}

export function readStatusPages(raw: unknown): StatusPageDeclaration[] {
  return readList(
    'status_pages',
    raw,
    (open) => {
      const r = open([
        'slug',
        'title',
        'description',
        'published',
        'show_uptime',
        'history_days',
        'footer',
        'language',
        'sections',
      ]);
      const slug = r.string('slug');
      if (!STATUS_PAGE_SLUG_PATTERN.test(slug))
        r.refuse('slug', `required, 1 to 64 lowercase letters, digits and '-' (got ${describe(slug)})`);
      const title = r.string('title').trim();
      if (title === '' || title.length > STATUS_PAGE_LIMITS.title)
        r.refuse('title', `required, 1 to ${STATUS_PAGE_LIMITS.title} characters`);
      const text = (name: string) => {
        const value = r.string(name);
        if (value.length > STATUS_PAGE_LIMITS.text)
          r.refuse(name, `must be at most ${STATUS_PAGE_LIMITS.text} characters`);
        return value;
      };
      const historyDays = r.raw('history_days') ?? 90;
      if (!(STATUS_PAGE_HISTORY_DAYS as readonly unknown[]).includes(historyDays))
        r.refuse('history_days', `must be 30, 60 or 90 (got ${describe(historyDays)})`);
      const sections = r.mappings(
        'sections',
        (section) => {
          const sectionTitle = section.string('title').trim();
          if (sectionTitle.length > STATUS_PAGE_LIMITS.sectionTitle)
            section.refuse('title', `must be at most ${STATUS_PAGE_LIMITS.sectionTitle} characters`);
          const sensors = section.strings('sensors');
          if (sensors.length > STATUS_PAGE_LIMITS.sensorsPerSection)
            section.refuse('sensors', `must list at most ${STATUS_PAGE_LIMITS.sensorsPerSection} sensors`);
          const twice = sensors.find((name, i) => sensors.indexOf(name) !== i);
          if (twice !== undefined) section.refuse('sensors', `sensor ${describe(twice)} is listed twice`);
          return { title: sectionTitle, sensors };
        },
        ['title', 'sensors'],
      );
      if (sections.length > STATUS_PAGE_LIMITS.sections)
        r.refuse('sections', `must have at most ${STATUS_PAGE_LIMITS.sections} entries`);
      return {
        slug,
        title,
        description: text('description'),
        published: r.boolean('published', false),
        show_uptime: r.boolean('show_uptime', true),
        history_days: historyDays as number,
        footer: text('footer'),
        language: r.string('language') === '' ? '' : r.oneOf('language', STATUS_PAGE_LANGUAGES),
        sections,
      };
    },
    'slug',
  );
}

/** Cross-references between sections: names used by sensors, windows and status pages must be declared. */
export function checkReferences(
  sites: SiteDeclaration[],
  channels: ChannelDeclaration[],
  sensors: SensorDeclaration[],
  maintenance: MaintenanceDeclaration[],
  statusPages: StatusPageDeclaration[] = [],
): void {
  const channelNames = new Set(channels.map((c) => c.name));
  const sensorNames = new Set(sensors.map((s) => s.name));
  const siteNames = new Set(sites.map((s) => s.name));
  sensors.forEach((sensor, index) => {
    if (sensor.site !== '' && !siteNames.has(sensor.site)) {
      fail(`sensors[${index}].site`, `no site named ${describe(sensor.site)} is declared`);
    }
    sensor.channels.forEach((name) => {
      if (!channelNames.has(name))
        fail(`sensors[${index}].channels`, `no channel named ${describe(name)} is declared`);
    });
  });
  maintenance.forEach((window, index) => {
    window.sensors.forEach((name) => {
      if (!sensorNames.has(name))
        fail(`maintenance[${index}].sensors`, `no sensor named ${describe(name)} is declared`);
    });
  });
  statusPages.forEach((page, index) =>
    page.sections.forEach((section, s) =>
      section.sensors.forEach((name) => {
        if (!sensorNames.has(name))
          fail(
            `status_pages[${index}].sections[${s}].sensors`,
            `no sensor named ${describe(name)} is declared`,
          );
      }),
    ),
  );
}
