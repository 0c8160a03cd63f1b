import {
  checkReferences,
  readChannels,
  readMaintenance,
  readSensors,
  readSites,
  readStatusPages,
} from './config-sections';
import {
  CHANNEL_TYPES,
  ChannelDeclaration,
  ConfigError,
  MaintenanceDeclaration,
  SENSOR_TYPES,
  SensorDeclaration,
  SiteDeclaration,
} from './monitor-config';

function catchConfigError(run: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error('expected a ConfigError, but nothing was thrown');
  expect(thrown).toBeInstanceOf(ConfigError);
  return thrown as ConfigError;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The error is a ConfigError whose single-line message names `key` right after the prefix. */
function expectKeyError(run: () => unknown, key: string, ...fragments: string[]): ConfigError {
  const error = catchConfigError(run);
  expect(error.message).not.toMatch(/[\r\n]/);
  expect(error.message).toMatch(new RegExp(`^invalid configuration: ${escapeRegExp(key)}: `));
  for (const fragment of fragments) expect(error.message).toContain(fragment);
  return error;
}

type Reader = (raw: unknown) => unknown[];

const SECTIONS: [string, Reader, Record<string, unknown>][] = [
  ['sites', readSites, { name: 'home' }],
  ['channels', readChannels, { name: 'ops', type: 'webhook' }],
  ['sensors', readSensors, { name: 'web', type: 'http', target: 'https://example.com' }],
  [
    'maintenance',
    readMaintenance,
    { name: 'patch', starts_at: '2024-06-01T00:00:00Z', ends_at: '2024-06-01T01:00:00Z' },
  ],
];

describe.each(SECTIONS)('%s: rules shared by every section', (section, read, valid) => {
  it.each([[undefined], [null]])('an absent section (%p) is an empty list', (raw) => {
    expect(read(raw)).toEqual([]);
  });

  it('an empty list is an empty list', () => {
    expect(read([])).toEqual([]);
  });

  it.each([['text'], [{ name: 'x' }], [42], [true]])('refuses a section that is not a list: %p', (raw) => {
    expectKeyError(() => read(raw), section, 'must be a list');
  });

  it.each([['text'], [null], [['a']], [7]])('refuses an item that is not a mapping: %p', (item) => {
    expectKeyError(() => read([valid, item]), `${section}[1]`, 'must be a mapping');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['a number', 42],
    ['a list', ['a']],
    ['null', null],
  ])('requires a name (%s)', (_label, name) => {
    const item: Record<string, unknown> = { ...valid, name };
    if (name === undefined) delete item.name;
    expectKeyError(() => read([item]), `${section}[0].name`, 'required');
  });

  it('trims the name', () => {
    expect(read([{ ...valid, name: '  spaced  ' }])[0]).toMatchObject({ name: 'spaced' });
  });

  it('refuses a duplicate name and names the later item', () => {
    expectKeyError(
      () =>
        read([
          { ...valid, name: 'one' },
          { ...valid, name: 'two' },
          { ...valid, name: 'one' },
        ]),
      `${section}[2].name`,
      'duplicate',
      '"one"',
    );
  });

  it('refuses names that only differ by surrounding spaces', () => {
    expectKeyError(
      () =>
        read([
          { ...valid, name: 'one' },
          { ...valid, name: ' one ' },
        ]),
      `${section}[1].name`,
    );
  });

  it('accepts names that differ only by case', () => {
    expect(
      read([
        { ...valid, name: 'one' },
        { ...valid, name: 'One' },
      ]),
    ).toHaveLength(2);
  });

  it.each([['extra'], ['Name'], ['description']])('refuses the unknown key %p inside an item', (key) => {
    expectKeyError(
      () => read([valid, { ...valid, name: 'second', [key]: 1 }]),
      `${section}[1].${key}`,
      'unknown key',
    );
  });

  it('keeps the message on one line when an unknown key contains a line break', () => {
    const error = catchConfigError(() => read([{ ...valid, 'odd\r\nkey': 1 }]));
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message).toContain(`${section}[0].`);
  });
});

describe('sites', () => {
  it('fills in the defaults: kind local, no coordinates', () => {
    expect(readSites([{ name: 'home' }])).toEqual<SiteDeclaration[]>([
      { name: 'home', kind: 'local', lat: null, lon: null },
    ]);
  });

  it.each([
    ['empty', ''],
    ['null', null],
  ])('treats an %s kind as local', (_label, kind) => {
    expect(readSites([{ name: 'home', kind }])[0].kind).toBe('local');
  });

  it.each([['local'], ['external']])('accepts kind %p', (kind) => {
    expect(readSites([{ name: 'x', kind }])[0].kind).toBe(kind);
  });

  it.each([['remote'], ['Local'], ['EXTERNAL'], [' local']])('refuses kind %p', (kind) => {
    expectKeyError(() => readSites([{ name: 'x', kind }]), 'sites[0].kind', JSON.stringify(kind));
  });

  it.each([[5], [true], [['local']]])('refuses a kind that is not a string: %p', (kind) => {
    expectKeyError(() => readSites([{ name: 'x', kind }]), 'sites[0].kind');
  });

  it('keeps given coordinates', () => {
    expect(readSites([{ name: 'x', kind: 'external', lat: 52.52, lon: 13.405 }])[0]).toEqual({
      name: 'x',
      kind: 'external',
      lat: 52.52,
      lon: 13.405,
    });
  });

  it.each([
    [0, 0],
    [0, 13.4],
    [52.5, 0],
  ])('accepts lat %p lon %p (0 is a real coordinate)', (lat, lon) => {
    expect(readSites([{ name: 'x', lat, lon }])[0]).toMatchObject({ lat, lon });
  });

  it.each([
    [90, 180],
    [-90, -180],
  ])('accepts the edges lat %p lon %p', (lat, lon) => {
    expect(readSites([{ name: 'x', lat, lon }])[0]).toMatchObject({ lat, lon });
  });

  it.each([
    ['lat without lon', { lat: 10 }, 'sites[0].lon'],
    ['lat 0 without lon', { lat: 0 }, 'sites[0].lon'],
    ['lon without lat', { lon: 10 }, 'sites[0].lat'],
    ['lon 0 without lat', { lon: 0 }, 'sites[0].lat'],
    ['lat with a null lon', { lat: 10, lon: null }, 'sites[0].lon'],
  ])('refuses %s', (_label, coordinates, key) => {
    expectKeyError(() => readSites([{ name: 'x', ...coordinates }]), key, 'together');
  });

  it.each([
    ['lat', 90.0001, 0],
    ['lat', -91, 0],
    ['lon', 0, 180.5],
    ['lon', 0, -181],
    ['lat', '52.5', 13],
    ['lon', 52, '13'],
    ['lat', Number.NaN, 1],
    ['lon', 1, Number.POSITIVE_INFINITY],
    ['lat', true, 1],
  ])('refuses a bad %s (lat %p, lon %p)', (field, lat, lon) => {
    expectKeyError(() => readSites([{ name: 'x', lat, lon }]), `sites[0].${field}`, 'must be a number');
  });
});

describe('channels', () => {
  it('reads a full channel', () => {
    const config = { url: 'https://hooks.example.com/x', headers: { 'X-Token': 'abc' } };
    expect(
      readChannels([
        {
          name: 'ops',
          type: 'webhook',
          config,
          enabled: false,
          title_template: '{{sensor}} is {{state}}',
          body_template: 'since {{since}}',
        },
      ]),
    ).toEqual<ChannelDeclaration[]>([
      {
        name: 'ops',
        type: 'webhook',
        config,
        enabled: false,
        title_template: '{{sensor}} is {{state}}',
        body_template: 'since {{since}}',
      },
    ]);
  });

  it('fills in the defaults', () => {
    expect(readChannels([{ name: 'ops', type: 'push_topic' }])).toEqual<ChannelDeclaration[]>([
      { name: 'ops', type: 'push_topic', config: {}, enabled: true, title_template: '', body_template: '' },
    ]);
  });

  it.each(CHANNEL_TYPES.map((type) => [type]))('accepts type %p', (type) => {
    expect(readChannels([{ name: 'c', type }])[0].type).toBe(type);
  });

  it.each([['sms'], ['Webhook'], [''], [null], [3]])('refuses type %p', (type) => {
    expectKeyError(() => readChannels([{ name: 'c', type }]), 'channels[0].type', CHANNEL_TYPES.join(', '));
  });

  it('requires a type', () => {
    expectKeyError(() => readChannels([{ name: 'c' }]), 'channels[0].type');
  });

  it.each([[['a']], ['url=x'], [1], [true]])('refuses a config that is not a mapping: %p', (config) => {
    expectKeyError(
      () => readChannels([{ name: 'c', type: 'webhook', config }]),
      'channels[0].config',
      'mapping',
    );
  });

  it('treats a null config as empty', () => {
    expect(readChannels([{ name: 'c', type: 'webhook', config: null }])[0].config).toEqual({});
  });

  it.each([['yes'], ['true'], [1], [0]])('refuses enabled %p', (enabled) => {
    expectKeyError(() => readChannels([{ name: 'c', type: 'webhook', enabled }]), 'channels[0].enabled');
  });

  it.each([['title_template'], ['body_template']])('refuses a %s that is not a string', (field) => {
    expectKeyError(() => readChannels([{ name: 'c', type: 'webhook', [field]: 5 }]), `channels[0].${field}`);
  });
});

describe('sensors', () => {
  const base = { name: 'web', type: 'http', target: 'https://example.com' };

  it('fills in the defaults', () => {
    expect(readSensors([base])).toEqual<SensorDeclaration[]>([
      {
        name: 'web',
        type: 'http',
        target: 'https://example.com',
        interval: 60,
        retries: 3,
        reminder_every: 0,
        group: '',
        tags: [],
        site: '',
        enabled: true,
        options: {},
        channels: [],
      },
    ]);
  });

  it('reads every field', () => {
    const sensor = {
      name: 'db',
      type: 'tcp',
      target: ' db.internal:5432 ',
      interval: 30,
      retries: 5,
      reminder_every: 3600,
      group: 'storage',
      tags: ['prod', ' critical '],
      site: 'home',
      enabled: false,
      options: { timeout_ms: 2000 },
      channels: ['ops'],
    };
    expect(readSensors([sensor])).toEqual([
      { ...sensor, target: 'db.internal:5432', tags: ['prod', 'critical'] },
    ]);
  });

  it.each(SENSOR_TYPES.map((type) => [type]))('accepts type %p', (type) => {
    expect(readSensors([{ ...base, type }])[0].type).toBe(type);
  });

  it.each([['icmp'], ['HTTP'], [''], [null], [1]])('refuses type %p', (type) => {
    expectKeyError(() => readSensors([{ ...base, type }]), 'sensors[0].type', SENSOR_TYPES.join(', '));
  });

  it('requires a type', () => {
    const { type: _type, ...rest } = base;
    expectKeyError(() => readSensors([rest]), 'sensors[0].type');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['null', null],
  ])('requires a target (%s)', (_label, target) => {
    const item: Record<string, unknown> = { ...base, target };
    if (target === undefined) delete item.target;
    expectKeyError(() => readSensors([item]), 'sensors[0].target', 'required');
  });

  it.each([[42], [['a']], [{ host: 'x' }]])('refuses a target that is not a string: %p', (target) => {
    expectKeyError(() => readSensors([{ ...base, target }]), 'sensors[0].target', 'string');
  });

  describe.each([
    ['interval', 1, 86400],
    ['retries', 1, 100],
    ['reminder_every', 0, 604800],
  ] as const)('%s bounds %p..%p', (field, min, max) => {
    it.each([[min], [max], [Math.floor((min + max) / 2)]])('accepts %p', (value) => {
      expect(readSensors([{ ...base, [field]: value }])[0][field]).toBe(value);
    });

    it.each([[min - 1], [max + 1], [min + 0.5], [-1000], [String(max)], [true]])(
      'refuses %p and names the item by index',
      (value) => {
        expectKeyError(
          () => readSensors([base, { ...base, name: 'second', [field]: value }]),
          `sensors[1].${field}`,
          `from ${min} to ${max}`,
        );
      },
    );

    it('treats null as the default', () => {
      expect(readSensors([{ ...base, [field]: null }])[0][field]).toBe(readSensors([base])[0][field]);
    });
  });

  it.each([
    ['tags', 'prod'],
    ['tags', ['prod', '']],
    ['tags', ['prod', '  ']],
    ['tags', ['prod', 5]],
    ['tags', { a: 1 }],
    ['channels', 'ops'],
    ['channels', ['ops', null]],
  ])('refuses %s = %p', (field, value) => {
    expectKeyError(() => readSensors([{ ...base, [field]: value }]), `sensors[0].${field}`, 'list');
  });

  it.each([
    ['group', 5],
    ['site', ['home']],
    ['enabled', 'no'],
    ['enabled', 0],
    ['options', 'timeout=1'],
    ['options', [1, 2]],
  ])('refuses %s = %p', (field, value) => {
    expectKeyError(() => readSensors([{ ...base, [field]: value }]), `sensors[0].${field}`);
  });
});

describe('maintenance', () => {
  const window = (fields: Record<string, unknown>) => ({
    name: 'patch',
    starts_at: '2024-06-01T00:00:00Z',
    ends_at: '2024-06-01T02:00:00Z',
    ...fields,
  });

  it('reads a window and normalizes the timestamps to UTC', () => {
    expect(
      readMaintenance([
        {
          name: 'patch',
          starts_at: '2024-06-01T02:00:00+02:00',
          ends_at: '2024-06-01T01:30:00.250Z',
          sensors: ['web', ' db '],
        },
      ]),
    ).toEqual<MaintenanceDeclaration[]>([
      {
        name: 'patch',
        starts_at: '2024-06-01T00:00:00.000Z',
        ends_at: '2024-06-01T01:30:00.250Z',
        sensors: ['web', 'db'],
      },
    ]);
  });

  it('defaults sensors to an empty list', () => {
    expect(readMaintenance([window({})])[0].sensors).toEqual([]);
  });

  it.each([
    ['2024-06-01T00:00:00Z', '2024-06-01T00:00:00.000Z'],
    ['2024-06-01T00:00:00.5Z', '2024-06-01T00:00:00.500Z'],
    ['2024-06-01T05:30:00+05:30', '2024-06-01T00:00:00.000Z'],
    ['2024-05-31T20:00:00-04:00', '2024-06-01T00:00:00.000Z'],
    ['2024-06-01t00:00:00z', '2024-06-01T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('accepts the RFC 3339 timestamp %p', (starts_at, expected) => {
    const [read] = readMaintenance([window({ starts_at, ends_at: '2024-12-31T00:00:00Z' })]);
    expect(read.starts_at).toBe(expected);
  });

  it('accepts a Date (as a YAML 1.1 timestamp would give)', () => {
    const [read] = readMaintenance([window({ starts_at: new Date(Date.UTC(2024, 5, 1)) })]);
    expect(read.starts_at).toBe('2024-06-01T00:00:00.000Z');
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['a date without time', '2024-06-01'],
    ['a time without offset', '2024-06-01T00:00:00'],
    ['a time without seconds', '2024-06-01T00:00Z'],
    ['a space instead of T', '2024-06-01 00:00:00Z'],
    ['an offset without colon', '2024-06-01T00:00:00+0200'],
    ['an impossible day', '2023-02-29T00:00:00Z'],
    ['day 31 of a 30-day month', '2024-06-31T00:00:00Z'],
    ['month 13', '2024-13-01T00:00:00Z'],
    ['hour 24', '2024-06-01T24:00:00Z'],
    ['trailing text', '2024-06-01T00:00:00Z junk'],
    ['words', 'June 1st 2024'],
    ['an epoch number', 1717200000],
    ['a boolean', true],
    ['an invalid Date', new Date(Number.NaN)],
  ])('refuses starts_at as %s', (_label, starts_at) => {
    const item = window({ starts_at });
    if (starts_at === undefined) delete (item as Record<string, unknown>).starts_at;
    expectKeyError(() => readMaintenance([item]), 'maintenance[0].starts_at', 'RFC 3339');
  });

  it('requires ends_at', () => {
    const { ends_at: _ends, ...rest } = window({});
    expectKeyError(() => readMaintenance([rest]), 'maintenance[0].ends_at', 'RFC 3339');
  });

  it.each([
    ['equal instants', '2024-06-01T00:00:00Z', '2024-06-01T00:00:00Z'],
    ['the same instant in two offsets', '2024-06-01T02:00:00+02:00', '2024-06-01T00:00:00Z'],
    ['ends before starts', '2024-06-02T00:00:00Z', '2024-06-01T00:00:00Z'],
    ['ends earlier though its text sorts later', '2024-06-01T09:00:00Z', '2024-06-01T10:00:00+02:00'],
  ])('refuses %s', (_label, starts_at, ends_at) => {
    expectKeyError(
      () => readMaintenance([window({ starts_at, ends_at })]),
      'maintenance[0].ends_at',
      'after',
    );
  });

  it('compares instants, not text, across offsets', () => {
    const [read] = readMaintenance([
      window({ starts_at: '2024-06-01T10:00:00+02:00', ends_at: '2024-06-01T09:00:00Z' }),
    ]);
    expect(read).toMatchObject({
      starts_at: '2024-06-01T08:00:00.000Z',
      ends_at: '2024-06-01T09:00:00.000Z',
    });
  });

  it.each([['web'], [['web', '']], [[1]]])('refuses sensors = %p', (sensors) => {
    expectKeyError(() => readMaintenance([window({ sensors })]), 'maintenance[0].sensors', 'list');
  });
});

describe('checkReferences', () => {
  const sites = readSites([{ name: 'home' }, { name: 'cloud', kind: 'external' }]);
  const channels = readChannels([
    { name: 'ops', type: 'webhook' },
    { name: 'pager', type: 'push_topic' },
  ]);
  const sensor = (fields: Record<string, unknown>) => ({ type: 'ping', target: 'host', ...fields });

  it('accepts references to declared names, and sensors without a site', () => {
    const sensors = readSensors([
      sensor({ name: 'a', site: 'home', channels: ['ops', 'pager'] }),
      sensor({ name: 'b' }),
      sensor({ name: 'c', site: 'cloud' }),
    ]);
    const maintenance = readMaintenance([
      { name: 'm', starts_at: '2024-01-01T00:00:00Z', ends_at: '2024-01-02T00:00:00Z', sensors: ['a', 'c'] },
    ]);
    expect(() => checkReferences(sites, channels, sensors, maintenance)).not.toThrow();
  });

  it('refuses a sensor naming an undeclared channel', () => {
    const sensors = readSensors([
      sensor({ name: 'a', channels: ['ops'] }),
      sensor({ name: 'b', channels: ['ops', 'sms'] }),
    ]);
    expectKeyError(() => checkReferences(sites, channels, sensors, []), 'sensors[1].channels', '"sms"');
  });

  it('refuses a sensor naming an undeclared site', () => {
    const sensors = readSensors([sensor({ name: 'a', site: 'office' })]);
    expectKeyError(() => checkReferences(sites, channels, sensors, []), 'sensors[0].site', '"office"');
  });

  it('refuses a channel reference when no channels are declared at all', () => {
    const sensors = readSensors([sensor({ name: 'a', channels: ['ops'] })]);
    expectKeyError(() => checkReferences(sites, [], sensors, []), 'sensors[0].channels', '"ops"');
  });

  it('refuses a maintenance window naming an undeclared sensor', () => {
    const sensors = readSensors([{ name: 'a', type: 'ping', target: 'host' }]);
    const maintenance = readMaintenance([
      { name: 'ok', starts_at: '2024-01-01T00:00:00Z', ends_at: '2024-01-02T00:00:00Z', sensors: ['a'] },
      {
        name: 'bad',
        starts_at: '2024-01-01T00:00:00Z',
        ends_at: '2024-01-02T00:00:00Z',
        sensors: ['a', 'ghost'],
      },
    ]);
    expectKeyError(
      () => checkReferences(sites, channels, sensors, maintenance),
      'maintenance[1].sensors',
      '"ghost"',
    );
  });

  it('matches names exactly (case-sensitive)', () => {
    const sensors = readSensors([sensor({ name: 'a', site: 'Home' })]);
    expectKeyError(() => checkReferences(sites, channels, sensors, []), 'sensors[0].site', '"Home"');
  });
});

describe('status_pages', () => {
  it('fills the defaults the API uses and trims titles', () => {
    expect(readStatusPages([{ slug: 'main', title: ' Main ', sections: [{ sensors: ['a'] }] }])).toEqual([
      {
        slug: 'main',
        title: 'Main',
        description: '',
        published: false,
        show_uptime: true,
        history_days: 90,
        footer: '',
        language: '',
        sections: [{ title: '', sensors: ['a'] }],
      },
    ]);
  });

  it.each([
    [{ slug: 'main' }, 'status_pages[0].title', 'required'],
    [{ slug: 'main', title: 't', published: 'yes' }, 'status_pages[0].published', 'true or false'],
    [{ slug: 'main', title: 't', language: 'fr' }, 'status_pages[0].language', 'en, de'],
    [{ slug: 'main', title: 't', sections: {} }, 'status_pages[0].sections', 'must be a list'],
    [
      { slug: 'main', title: 't', sections: [{ title: 'x', sensors: ['a'], extra: 1 }] },
      'status_pages[0].sections[0].extra',
      'unknown key',
    ],
    [{ slug: 'main', title: 't', footer: 'f'.repeat(2001) }, 'status_pages[0].footer', 'at most 2000'],
  ])('refuses %j naming the key', (item, key, fragment) => {
    expectKeyError(() => readStatusPages([item]), key, fragment);
  });

  it('sections name sensors the file declares', () => {
    const sensors = readSensors([{ name: 'a', type: 'ping', target: 'host' }]);
    const pages = readStatusPages([
      { slug: 'p', title: 't', sections: [{ sensors: ['a'] }, { sensors: ['a', 'b'] }] },
    ]);
    expectKeyError(
      () => checkReferences([], [], sensors, [], pages),
      'status_pages[0].sections[1].sensors',
      '"b"',
    );
  });
});
